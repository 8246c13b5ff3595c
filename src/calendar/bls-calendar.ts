import { zonedTimeToUtc } from '../lib/zoned-time.ts';
import type { Timestamp } from '../model/records.ts';
import type { BlsCalendar, BlsRelease, BlsReleaseDate, CalendarTime } from './types.ts';

export { blsReleaseForSeries } from './bls-release-for-series.ts';

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
