import { getReleases, type ReleaseRow } from '../api/v1/releases.ts';
import { RELEASE_SOURCE_IDS, RELEASE_SOURCES } from '../calendar/release-schedule.ts';
import { readPublicData, type SiteContext } from './data/site-context.ts';
import { formatTimestamp } from './format.ts';

/** Releases shown per source and kind (the JSON and iCalendar links give the rest). */
const ROWS_PER_LIST = 8;

/** One release as the calendar page lists it. */
export interface ReleaseItem {
  name: string;
  at: string;
  local: string;
  period: string;
  carried: string;
  basis: string;
  note: string | null;
}

/** One source's section of the release calendar page. */
export interface ReleaseSection {
  source: string;
  timeZone: string;
  upcoming: ReleaseItem[];
  recent: ReleaseItem[];
  jsonUrl: string;
  icsUrl: string;
}

/** The release calendar page: upcoming and recent releases per source, as of the build time. */
export interface ReleasesPage {
  now: string;
  sections: ReleaseSection[];
}

/** Reads the release calendar as the public /api/v1/releases serves it, per source. */
export async function readReleasesPage(context: SiteContext): Promise<ReleasesPage> {
  const sections: ReleaseSection[] = [];
  for (const source of RELEASE_SOURCE_IDS) {
    const { data } = await readPublicData<ReleaseRow[]>(context, getReleases, { source });
    sections.push({
      source,
      timeZone: RELEASE_SOURCES[source].time_zone,
      upcoming: data
        .filter((row) => row.status === 'scheduled')
        .slice(0, ROWS_PER_LIST)
        .map(present),
      recent: data
        .filter((row) => row.status === 'past')
        .slice(-ROWS_PER_LIST)
        .reverse()
        .map(present),
      jsonUrl: `/api/v1/releases?source=${source}`,
      icsUrl: `/api/v1/releases.ics?source=${source}`,
    });
  }
  return { now: formatTimestamp(`${context.now.toISOString().slice(0, 19)}Z`), sections };
}

function present(row: ReleaseRow): ReleaseItem {
  return {
    name: row.name,
    at: formatTimestamp(row.released_at ?? row.scheduled_at),
    local: row.local_time.replace('T', ' ').slice(0, 16),
    period: row.reference_period,
    carried:
      row.status === 'past'
        ? `${row.value_count} values of ${row.series_count} series (${row.revisions} revisions)`
        : `${row.series_count} series expected`,
    basis: row.basis.replace('_', ' '),
    note: row.note,
  };
}
