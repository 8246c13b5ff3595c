/** The next release the calendars schedule, per source and per series, for /status and /macro. */

import { getReleaseCalendars } from '../../calendar/release-calendars.ts';
import {
  listScheduledReleases,
  RELEASE_SOURCE_IDS,
  RELEASE_SOURCES,
  type ReleaseBasis,
} from '../../calendar/release-schedule.ts';
import { localWallTime } from '../../lib/zoned-time.ts';
import { readReleaseSubjects } from '../../query/releases.ts';
import type { PayloadFunction } from './context.ts';
import { releaseId, scheduleSubjects } from './releases.ts';

/** The next scheduled release of a source or series, as /status and /macro show it. */
export interface NextRelease {
  id: string;
  name: string;
  scheduled_at: string;
  time_zone: string;
  local_time: string;
  reference_period: string;
  basis: ReleaseBasis;
}

/** Per source (`source`) and per series key (`series`) the first release the calendars schedule after `now`. */
export async function readNextReleases(
  db: Parameters<PayloadFunction>[0]['db'],
  now: Date,
): Promise<{ source: Map<string, NextRelease>; series: Map<string, NextRelease> }> {
  const subjects = await readReleaseSubjects(db);
  const calendars = await getReleaseCalendars();
  const source = new Map<string, NextRelease>();
  const series = new Map<string, NextRelease>();
  for (const release of listScheduledReleases(
    calendars,
    scheduleSubjects(subjects),
    RELEASE_SOURCE_IDS,
    now,
  )) {
    const zone = RELEASE_SOURCES[release.source].time_zone;
    const next: NextRelease = {
      id: releaseId(release.source, release.name, release.at),
      name: release.name,
      scheduled_at: release.at,
      time_zone: zone,
      local_time: localWallTime(release.at, zone),
      reference_period: release.reference_period,
      basis: release.basis,
    };
    if (!source.has(release.source)) source.set(release.source, next);
    for (const key of release.series) if (!series.has(key)) series.set(key, next);
  }
  return { source, series };
}
