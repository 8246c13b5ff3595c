import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SHARED_DATA } from './paths.ts';

/** One ALFRED observation row as `fred/series/observations` (output_type 1) returns it. */
export interface AlfredRow {
  realtime_start: string;
  realtime_end: string;
  date: string;
  value: string;
}

/** The PAYEMS history the FRED emulator serves, built from the two real vintages. */
export interface PayemsVintages {
  /** The vintage dates of the two downloads, oldest first. */
  vintageDates: [string, string];
  rows: AlfredRow[];
}

/** FRED's "no end" of a real-time period. */
export const REALTIME_OPEN_END = '9999-12-31';

/**
 * The vintage date of `fred_PAYEMS_vintage_2025-08-02.csv`: downloaded on 2025-08-02, it is the
 * data of the Employment Situation for July 2025, released (and put on FRED) on 2025-08-01.
 */
export const EARLIER_VINTAGE = '2025-08-01';
/**
 * The vintage date of the later file, which PROVENANCE.md cannot date exactly: its last month
 * is 2026-09, first published by the Employment Situation of 2026-10-02 (BLS calendar).
 */
export const LATER_VINTAGE = '2026-10-02';

const EARLIER_FILE = 'fred_PAYEMS_vintage_2025-08-02.csv';
const LATER_FILE = 'fred_PAYEMS_vintage_latest-2026-09_trimmed_2023-07_onward.csv';

/** Reads a two-column FRED CSV (`DATE,PAYEMS` or `date,value`) into date → value text. */
function readTwoColumnCsv(name: string): Map<string, string> {
  const lines = readFileSync(join(SHARED_DATA, 'bls', name), 'utf8')
    .trim()
    .split(/\r?\n/)
    .slice(1);
  return new Map(lines.map((line) => line.split(',') as [string, string]));
}

function dayBefore(date: string): string {
  const instant = new Date(`${date}T00:00:00Z`);
  instant.setUTCDate(instant.getUTCDate() - 1);
  return instant.toISOString().slice(0, 10);
}

/**
 * The ALFRED rows of PAYEMS that the two real vintages prove: for the months both cover
 * (2023-07 … 2025-07) the earlier value from 2025-08-01 until the day before the later vintage,
 * then the later value; the months only the later vintage has (2025-08 … 2026-09) from its
 * date. Months only the earlier file has are left out: nothing shows how long those values held.
 */
export function readRealPayemsVintages(): PayemsVintages {
  const earlier = readTwoColumnCsv(EARLIER_FILE);
  const later = readTwoColumnCsv(LATER_FILE);
  const rows: AlfredRow[] = [];
  for (const [date, laterValue] of later) {
    const earlierValue = earlier.get(date);
    if (earlierValue !== undefined && earlierValue !== laterValue) {
      rows.push({
        realtime_start: EARLIER_VINTAGE,
        realtime_end: dayBefore(LATER_VINTAGE),
        date,
        value: earlierValue,
      });
      rows.push({ realtime_start: LATER_VINTAGE, realtime_end: REALTIME_OPEN_END, date, value: laterValue });
    } else {
      // ALFRED merges a value that two vintages agree on into one real-time period.
      const start = earlierValue === undefined ? LATER_VINTAGE : EARLIER_VINTAGE;
      rows.push({ realtime_start: start, realtime_end: REALTIME_OPEN_END, date, value: laterValue });
    }
  }
  rows.sort((a, b) => a.date.localeCompare(b.date) || a.realtime_start.localeCompare(b.realtime_start));
  return { vintageDates: [EARLIER_VINTAGE, LATER_VINTAGE], rows };
}
