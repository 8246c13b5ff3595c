/**
 * Converts a wall-clock date and time in an IANA time zone to an RFC 3339 UTC timestamp,
 * using the platform's time-zone database through Intl (DST-aware).
 */
export function zonedTimeToUtc(date: string, time: string, timeZone: string): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const [hh, mm, ss = 0] = time.split(':').map(Number) as [number, number, number?];
  const wallAsUtc = Date.UTC(y, m - 1, d, hh, mm, ss);
  // The offset at the guessed instant; a second pass settles instants near a DST change.
  let instant = wallAsUtc - offsetMs(wallAsUtc, timeZone);
  instant = wallAsUtc - offsetMs(instant, timeZone);
  return formatTimestamp(new Date(instant));
}

/** Formats a Date as RFC 3339 UTC with seconds and a `Z` (`2025-03-14T19:30:00Z`). */
export function formatTimestamp(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

/** Adds whole days to a `YYYY-MM-DD` date. */
export function addDays(date: string, days: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10);
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The wall-clock fields (year … second, 24-hour, zero-padded text) of an instant in a zone. */
function wallClock(instant: number, timeZone: string): Record<string, string> {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, formatter);
  }
  return Object.fromEntries(formatter.formatToParts(new Date(instant)).map((p) => [p.type, p.value]));
}

/** The wall time of an RFC 3339 instant in an IANA zone, `YYYY-MM-DDTHH:MM:SS` (no offset). */
export function localWallTime(at: string, timeZone: string): string {
  const parts = wallClock(Date.parse(at), timeZone);
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}`;
}

function offsetMs(instant: number, timeZone: string): number {
  const parts = wallClock(instant, timeZone);
  const asUtc = Date.UTC(
    Number(parts.year),
    Number(parts.month) - 1,
    Number(parts.day),
    Number(parts.hour),
    Number(parts.minute),
    Number(parts.second),
  );
  return asUtc - Math.floor(instant / 1000) * 1000;
}
