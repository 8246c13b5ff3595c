import { formatTimestamp } from '../lib/zoned-time.ts';
import type { Timestamp } from '../model/records.ts';
import { isDate } from './assert-date.ts';
import { blsFirstRelease, blsReleaseForSeries } from './bls-calendar.ts';
import { ecbReleaseTime } from './ecb-calendar.ts';
import type { Calendars, CalendarTime } from './types.ts';

/**
 * How far ahead of the pipeline's clock a knowledge time may be: the operator's and the
 * publisher's clocks may differ by this much. Anything later is in the future and refused.
 */
export const CLOCK_SKEW_SECONDS = 300;

/** The latest knowledge time accepted at `now` (an ingest's clock, a snapshot's creation). */
export function latestAcceptedTime(now: Date): Timestamp {
  return formatTimestamp(new Date(now.getTime() + CLOCK_SKEW_SECONDS * 1000));
}

/**
 * The proven first release of a fact's (series, period): when its publisher first published it,
 * by the release calendars (COT reports: the CFTC rule and its exceptions; ECB rates: the rate
 * date's publication; BLS months: the release that first carried them). Null where no calendar
 * proves one: other sources and periods, and COT reports whose release is only estimated. No
 * knowledge time may be earlier than it (src/ingest/knowledge-bounds.ts, `mmds verify`).
 */
export function provenRelease(seriesKey: string, period: string, calendars: Calendars): CalendarTime | null {
  const [source, id] = seriesKey.split('.');
  if (source === 'cftc') {
    if (!isDate(period)) return null;
    const release = calendars.cftc.releaseOf(period);
    return release.method === 'release_calendar' ? release : null;
  }
  if (source === 'ecb') return isDate(period) ? ecbReleaseTime(period) : null;
  if (source === 'bls' && id !== undefined) {
    const release = blsReleaseForSeries(id);
    return release === null ? null : blsFirstRelease(calendars.bls, release, period);
  }
  return null;
}

/**
 * The group a fact's release depends on besides its period: every COT report and every ECB rate
 * of one date share a release; a BLS series has its program's. Lets callers check one release
 * per (group, period) instead of one per fact.
 */
export function releaseGroupSql(seriesKey: string): string {
  return `CASE WHEN starts_with(${seriesKey}, 'bls.') THEN ${seriesKey} ELSE split_part(${seriesKey}, '.', 1) || '.' END`;
}
