import { DEFAULT_CALENDAR_DIR, loadCalendars } from '../../src/calendar/load-calendars.ts';
import type { Calendars } from '../../src/calendar/types.ts';
import { openDuckDb } from '../../src/db/duckdb.ts';

/** Loads the calendars shipped in data/calendars/ through a DuckDB instance it closes again. */
export async function loadShippedCalendars(): Promise<Calendars> {
  const db = await openDuckDb();
  const connection = await db.connect();
  try {
    return await loadCalendars(connection, DEFAULT_CALENDAR_DIR);
  } finally {
    connection.closeSync();
    db.closeSync();
  }
}
