// The shipped release calendars of data/calendars/ (BLS and CFTC), read once per process and kept
// with the rows they were made of: the schedule, /api/v1/releases and the delay noticer share them.
import { openDuckDb } from '../db/duckdb.ts';
import { createBlsCalendar } from './bls-calendar.ts';
import { createCftcCalendar } from './cftc-calendar.ts';
import {
  CALENDAR_FILES,
  DEFAULT_CALENDAR_DIR,
  readBlsReleaseDates,
  readCftcExceptions,
} from './load-calendars.ts';
import type { BlsCalendar, BlsReleaseDate, CftcCalendar, CftcReleaseException } from './types.ts';

/** The shipped calendars with the rows they were made of (the rows carry each source URL). */
export interface ReleaseCalendars {
  bls: BlsCalendar;
  cftc: CftcCalendar;
  blsRows: readonly BlsReleaseDate[];
  cftcExceptions: readonly CftcReleaseException[];
}

const loaded = new Map<string, Promise<ReleaseCalendars>>();

/**
 * The release calendars of data/calendars/ (or `dir`), read once per process through a DuckDB
 * instance of their own: a snapshot's instance may not read files outside the snapshot.
 */
export function getReleaseCalendars(dir: string = DEFAULT_CALENDAR_DIR): Promise<ReleaseCalendars> {
  let calendars = loaded.get(dir);
  if (calendars === undefined) {
    calendars = readReleaseCalendars(dir);
    // A failed read is not kept: the next request tries again (and reports the same error).
    calendars.catch(() => loaded.delete(dir));
    loaded.set(dir, calendars);
  }
  return calendars;
}

async function readReleaseCalendars(dir: string): Promise<ReleaseCalendars> {
  const instance = await openDuckDb({ threads: 1 });
  const connection = await instance.connect();
  try {
    const cftcExceptions = await readCftcExceptions(connection, `${dir}/${CALENDAR_FILES.cftc}`);
    const blsRows = await readBlsReleaseDates(connection, `${dir}/${CALENDAR_FILES.bls}`);
    return {
      bls: createBlsCalendar(blsRows),
      cftc: createCftcCalendar(cftcExceptions),
      blsRows,
      cftcExceptions,
    };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}
