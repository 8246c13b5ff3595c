import { zonedTimeToUtc } from '../lib/zoned-time.ts';
import type { Timestamp } from '../model/records.ts';
import type { BlsCalendar, BlsRelease, BlsReleaseDate, CalendarTime } from './types.ts';

export { blsReleaseForSeries, blsSeriesMayBeRevised } from './bls-release-for-series.ts';

const NEW_YORK = 'America/New_York';

interface Entry {
  reference_period: string;
  release_date: string;
  time: CalendarTime;
  /** Epoch milliseconds of `time.observed_at`, for ordering and search. */
  at: number;
}

/**
 * Creates the BLS release calendar from the rows of bls_release_dates.csv. A cancelled release
 * (October 2025) has no row, so its period has no release of its own: releaseOf returns null.
 */
export function createBlsCalendar(rows: readonly BlsReleaseDate[]): BlsCalendar {
  const byPeriod = new Map<string, Entry>();
  const byRelease = new Map<BlsRelease, Entry[]>();
  for (const row of rows) {
    const key = `${row.release}|${row.reference_period}`;
    if (byPeriod.has(key)) {
      throw new Error(`BLS release dates: ${row.release} ${row.reference_period} appears twice`);
    }
    const observedAt = zonedTimeToUtc(row.release_date, row.release_time_et, NEW_YORK);
    const entry: Entry = {
      reference_period: row.reference_period,
      release_date: row.release_date,
      time: { observed_at: observedAt, method: 'release_calendar', note: null },
      at: Date.parse(observedAt),
    };
    byPeriod.set(key, entry);
    const list = byRelease.get(row.release) ?? [];
    list.push(entry);
    byRelease.set(row.release, list);
  }
  // Release order, not period order: a delayed month can come out after its successor was due.
  for (const list of byRelease.values()) {
    list.sort((a, b) => a.at - b.at || a.reference_period.localeCompare(b.reference_period));
  }

  const entriesOf = (release: BlsRelease): Entry[] => byRelease.get(release) ?? [];
  const result = (entry: Entry | undefined) =>
    entry === undefined ? null : { reference_period: entry.reference_period, time: { ...entry.time } };

  return {
    releaseOf(release, referencePeriod) {
      const entry = byPeriod.get(`${release}|${referencePeriod}`);
      return entry === undefined ? null : { ...entry.time };
    },
    latestReleaseAtOrBefore(release, at) {
      const instant = parseInstant(at);
      const list = entriesOf(release);
      // The first entry strictly later than `at`; the one before it is the answer.
      const index = firstIndexAfter(list, instant);
      return result(list[index - 1]);
    },
    nextReleaseAfter(release, after) {
      const list = entriesOf(release);
      return result(list[firstIndexAfter(list, parseInstant(after))]);
    },
    coverageEnd(release) {
      const last = entriesOf(release).at(-1);
      return last?.release_date ?? null;
    },
  };
}

/** Binary search: the index of the first entry released strictly after `instant`. */
function firstIndexAfter(list: readonly Entry[], instant: number): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((list[middle] as Entry).at <= instant) low = middle + 1;
    else high = middle;
  }
  return low;
}

function parseInstant(at: Timestamp): number {
  const instant = Date.parse(at);
  if (Number.isNaN(instant)) throw new RangeError(`not a timestamp: ${JSON.stringify(at)}`);
  return instant;
}

/** How many later reference months to look at when a month's own release was cancelled. */
const CANCELLED_RELEASE_LOOKAHEAD = 3;

/**
 * The release that first carried a reference month (`YYYY-MM`) of a BLS program: its own row of
 * the calendar, or, where that release was cancelled (October 2025), the next release that
 * carried the month. Null for anything the calendar does not cover (other periods included).
 */
export function blsFirstRelease(
  calendar: BlsCalendar,
  release: BlsRelease,
  period: string,
): CalendarTime | null {
  if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(period)) return null;
  const own = calendar.releaseOf(release, period);
  if (own) return own;
  // Only a month inside the calendar can have had its release cancelled.
  if (calendar.releaseOf(release, addMonths(period, -1)) === null) return null;
  for (let ahead = 1; ahead <= CANCELLED_RELEASE_LOOKAHEAD; ahead++) {
    const time = calendar.releaseOf(release, addMonths(period, ahead));
    if (time) return time;
  }
  return null;
}

function addMonths(period: string, months: number): string {
  const [year, month] = period.split('-').map(Number) as [number, number];
  const index = year * 12 + (month - 1) + months;
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}`;
}
