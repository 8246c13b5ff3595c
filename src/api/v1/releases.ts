import { getReleaseCalendars } from '../../calendar/release-calendars.ts';
import { releaseKey, releaseOfSeries } from '../../calendar/release-names.ts';
import {
  listScheduledReleases,
  RELEASE_HORIZON_DAYS,
  RELEASE_SOURCE_IDS,
  RELEASE_SOURCES,
  type ReleaseBasis,
  type ReleaseSource,
  type ScheduledRelease,
  type ScheduleSubjects,
} from '../../calendar/release-schedule.ts';
import { ApiError, invalidParameter } from '../../contract/errors.ts';
import { FOLLOW_DAYS, findDelayedReleases } from '../../events/delayed-releases.ts';
import { addDays, localWallTime } from '../../lib/zoned-time.ts';
import { periodDaySpan } from '../../model/period-range.ts';
import {
  type PastReleaseGroup,
  type ReleaseSubject,
  readPastReleases,
  readReleaseSubjects,
} from '../../query/releases.ts';
import type { PayloadFunction } from './context.ts';

/** Without `from`, past releases of this many days before the request are listed. */
export const RELEASES_DEFAULT_PAST_DAYS = 92;
/** The longest range of days one request may cover (about three years). */
export const RELEASES_MAX_SPAN_DAYS = 1096;
/** Series keys listed per release; series_count gives the full number. */
export const RELEASE_SERIES_LISTED = 50;

/** One release of the calendar, past (from the store) or scheduled (from a calendar). */
export interface ReleaseRow {
  id: string;
  source: ReleaseSource;
  name: string;
  status: 'past' | 'scheduled';
  released_at: string | null;
  scheduled_at: string | null;
  time_zone: string;
  local_time: string;
  reference_period: string;
  first_period: string | null;
  last_period: string | null;
  series: string[];
  series_count: number;
  value_count: number | null;
  first_releases: number | null;
  revisions: number | null;
  knowledge_method: string | null;
  basis: ReleaseBasis;
  note: string | null;
  source_url: string | null;
}

/**
 * Endpoint 19: the release calendar. Past releases are read from the snapshot (the knowledge
 * times of its observations and COT reports, up to `now`); scheduled ones come from the shipped
 * calendars after `now`. Filters: source, series (key or slug), from/to (UTC days of the release).
 */
export const getReleases: PayloadFunction = async ({ db, now }, params) => {
  const query = params.query as Partial<Record<'source' | 'series' | 'from' | 'to', string>>;
  const sources = resolveSources(query.source);
  const subjects = await readReleaseSubjects(db);
  const seriesKeys = resolveSeries(query.series, subjects);
  const window = resolveWindow(query.from, query.to, now);
  const nowText = `${now.toISOString().slice(0, 19)}Z`;
  const pastEnd = window.to === null || window.to > nowText ? nowText : window.to;
  const groups =
    window.from > pastEnd
      ? []
      : await readPastReleases(db, {
          sources: sources.join(','),
          seriesKeys: seriesKeys?.join(',') ?? '',
          from: window.from.slice(0, 19).replace('T', ' '),
          to: pastEnd.slice(0, 19).replace('T', ' '),
        });
  const calendars = await getReleaseCalendars();
  const wanted = seriesKeys === null ? null : new Set(seriesKeys);
  const scheduled = listScheduledReleases(calendars, scheduleSubjects(subjects), sources, now).filter(
    (release) =>
      release.at >= window.from &&
      (window.to === null || release.at <= window.to) &&
      (wanted === null || release.series.some((key) => wanted.has(key))),
  );
  const data = [
    ...mergePast(groups).map(pastRow),
    ...scheduled.map((release) => scheduledRow(release, wanted)),
  ];
  return {
    data,
    meta: {
      now: nowText,
      from: window.from.slice(0, 10),
      to: window.to?.slice(0, 10) ?? null,
      sources,
      horizon: {
        bls: [...new Set(calendars.blsRows.map((row) => row.release))].map((release) => ({
          release,
          last_release_date: calendars.bls.coverageEnd(release),
        })),
        cftc_days: RELEASE_HORIZON_DAYS.cftc,
        ecb_days: RELEASE_HORIZON_DAYS.ecb,
      },
      snapshot_published_at: db.manifest.created_at,
      ics_url: '/api/v1/releases.ics',
    },
  };
};

function resolveSources(source: string | undefined): ReleaseSource[] {
  if (source === undefined) return [...RELEASE_SOURCE_IDS];
  if (!(RELEASE_SOURCE_IDS as string[]).includes(source))
    throw invalidParameter(
      'source',
      `one of the sources with a release calendar: ${RELEASE_SOURCE_IDS.join(', ')}`,
    );
  return [source as ReleaseSource];
}

function resolveSeries(series: string | undefined, subjects: readonly ReleaseSubject[]): string[] | null {
  if (series === undefined) return null;
  const subject = subjects.find((s) => s.key === series || s.slug === series);
  // As on the other endpoints, a well-formed series nobody knows is 404 (a malformed one is 400).
  if (subject === undefined)
    throw new ApiError(
      'not_found',
      `series ${series} not found: give the key or slug of a redistributable series of /api/v1/series, or the slug of a COT market of /api/v1/markets/cot`,
    );
  return subject.keys;
}

/** The window of release times as RFC 3339 UTC bounds; `to` null is open (up to each horizon). */
function resolveWindow(
  from: string | undefined,
  to: string | undefined,
  now: Date,
): { from: string; to: string | null } {
  const today = now.toISOString().slice(0, 10);
  const lastDay = to === undefined ? null : periodDaySpan(to)!.last;
  // Without from: 92 days before today, or before the end of `to` when that is earlier.
  const anchor = lastDay !== null && lastDay < today ? lastDay : today;
  const firstDay =
    from === undefined ? addDays(anchor, -RELEASES_DEFAULT_PAST_DAYS) : periodDaySpan(from)!.first;
  const end = lastDay ?? addDays(today, 366);
  const span = (Date.parse(end) - Date.parse(firstDay)) / 86_400_000;
  if (span > RELEASES_MAX_SPAN_DAYS)
    throw invalidParameter(
      from === undefined ? 'to' : 'from',
      `a range of at most ${RELEASES_MAX_SPAN_DAYS} days (from ${firstDay} to ${end} is ${span} days; without to, the range ends 366 days after today): narrow from and to`,
    );
  return { from: `${firstDay}T00:00:00Z`, to: lastDay === null ? null : `${lastDay}T23:59:59Z` };
}

export function scheduleSubjects(subjects: readonly ReleaseSubject[]): ScheduleSubjects {
  const keysOf = (source: string) => subjects.filter((s) => s.source === source).flatMap((s) => s.keys);
  return { bls: keysOf('bls'), ecb: keysOf('ecb'), cftc: keysOf('cftc') };
}

interface PastRelease extends Omit<PastReleaseGroup, 'group_key'> {
  name: string;
}

/**
 * BLS groups are per series: merge those of one news release and knowledge time (the knowledge
 * methods of the merged groups are listed together, `publisher_timestamp, vintage`).
 */
function mergePast(groups: readonly PastReleaseGroup[]): PastRelease[] {
  const merged = new Map<string, PastRelease>();
  for (const group of groups) {
    const name = releaseOfSeries(group.source, group.group_key, group.source === 'cftc', null).release_name;
    const id = `${group.source}|${name}|${group.observed_at}`;
    const known = merged.get(id);
    if (known === undefined) {
      const { group_key: _, ...rest } = group;
      merged.set(id, { ...rest, name, series: [...group.series] });
      continue;
    }
    if (!known.observed_at_method.split(', ').includes(group.observed_at_method))
      known.observed_at_method = [...known.observed_at_method.split(', '), group.observed_at_method]
        .sort()
        .join(', ');
    known.value_count += group.value_count;
    known.first_releases += group.first_releases;
    known.series_count += group.series_count;
    known.series = [...known.series, ...group.series].sort().slice(0, RELEASE_SERIES_LISTED);
    if (group.first_period < known.first_period) known.first_period = group.first_period;
    if (group.last_period > known.last_period) known.last_period = group.last_period;
  }
  return [...merged.values()];
}

function pastRow(release: PastRelease): ReleaseRow {
  const source = release.source as ReleaseSource;
  const zone = RELEASE_SOURCES[source].time_zone;
  return {
    id: releaseId(source, release.name, release.observed_at),
    source,
    name: release.name,
    status: 'past',
    released_at: release.observed_at,
    scheduled_at: null,
    time_zone: zone,
    local_time: localWallTime(release.observed_at, zone),
    reference_period: release.last_period,
    first_period: release.first_period,
    last_period: release.last_period,
    series: release.series,
    series_count: release.series_count,
    value_count: release.value_count,
    first_releases: release.first_releases,
    revisions: release.value_count - release.first_releases,
    knowledge_method: release.observed_at_method,
    basis: 'store',
    note: release.observed_at_method.includes('collected')
      ? 'the time these values were collected, not a publisher release time (no calendar dates them)'
      : release.observed_at_method.includes('later_release')
        ? 'values collected after this release, dated by it since it could have revised them; their first release may be earlier'
        : null,
    source_url: null,
  };
}

function scheduledRow(release: ScheduledRelease, wanted: ReadonlySet<string> | null): ReleaseRow {
  const zone = RELEASE_SOURCES[release.source].time_zone;
  const series = wanted === null ? release.series : release.series.filter((key) => wanted.has(key));
  return {
    id: releaseId(release.source, release.name, release.at),
    source: release.source,
    name: release.name,
    status: 'scheduled',
    released_at: null,
    scheduled_at: release.at,
    time_zone: zone,
    local_time: localWallTime(release.at, zone),
    reference_period: release.reference_period,
    first_period: null,
    last_period: null,
    series: [...series].sort().slice(0, RELEASE_SERIES_LISTED),
    series_count: series.length,
    value_count: null,
    first_releases: null,
    revisions: null,
    knowledge_method: null,
    basis: release.basis,
    note: release.note,
    source_url: release.source_url,
  };
}

/**
 * A release's stable id: source, release name and UTC time, so a scheduled release keeps its id
 * (and its iCalendar UID) once it is past.
 */
export function releaseId(source: string, name: string, at: string): string {
  return `${releaseKey(source, name)}-${at.replace(/[-:]/g, '')}`;
}

/**
 * The releases the calendars expected in the `lookbackHours` before `now` that have not landed
 * in the snapshot `graceMinutes` after their time (events/delayed-releases.ts decides; the
 * landed releases are read and named as this endpoint's past rows are).
 */
export async function readDelayedReleases(
  db: Parameters<PayloadFunction>[0]['db'],
  now: Date,
  options: { graceMinutes: number; lookbackHours: number },
): Promise<ScheduledRelease[]> {
  const subjects = await readReleaseSubjects(db);
  const sql = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
  // Landed data counts from 12 hours before a scheduled time, and a release is judged only when
  // the store holds one of its releases of the FOLLOW_DAYS before (findDelayedReleases).
  const groups = await readPastReleases(db, {
    sources: RELEASE_SOURCE_IDS.join(','),
    seriesKeys: '',
    from: sql(now.getTime() - (options.lookbackHours + FOLLOW_DAYS * 24) * 3600_000),
    to: sql(now.getTime()),
  });
  const landed = mergePast(groups).map((release) => ({
    source: release.source,
    name: release.name,
    released_at: release.observed_at,
  }));
  return findDelayedReleases(await getReleaseCalendars(), scheduleSubjects(subjects), landed, {
    now,
    ...options,
  });
}
