import { formatTimestamp } from '../lib/zoned-time.ts';

/**
 * What a timestamp parameter (`as_of`) accepts, and how it is read: RFC 3339 date-times as
 * clients write them (`Date.toISOString()` adds milliseconds, other clients an offset), and a
 * day alone for people typing a URL. Everything is normalised to one form, UTC whole seconds
 * (`2025-12-31T23:59:59Z`), which is what the queries compare and what `meta.as_of` states.
 */

const DAY = '(\\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\\d|3[01]))';
const TIME = '([01]\\d|2[0-3]):([0-5]\\d):([0-5]\\d)';
/** A date-time: `T` (or `t`), optional fraction of any length, `Z` (or `z`) or a `±HH:MM` offset. */
const DATE_TIME = new RegExp(`^${DAY}[Tt]${TIME}(?:\\.\\d{1,9})?([Zz]|[+-](?:[01]\\d|2[0-3]):[0-5]\\d)$`);
const DAY_ONLY = new RegExp(`^${DAY}$`);

/** The pattern OpenAPI states (the same forms; day and time realness are checked in code). */
export const INSTANT_PATTERN =
  '^\\d{4}-\\d{2}-\\d{2}([Tt]\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?([Zz]|[+-]\\d{2}:\\d{2}))?$';

/** The accepted forms in words, each with an example, for the 400 message and the OpenAPI text. */
export const INSTANT_FORMS =
  'an RFC 3339 timestamp such as 2025-12-31T12:00:00Z, with fractional seconds such as ' +
  '2025-12-31T12:00:00.000Z (dropped: the whole second before) or with an offset such as ' +
  '2025-12-31T13:00:00+01:00 (in a URL write + as %2B), or a day such as 2025-12-31 (the end of ' +
  'that day in UTC, 23:59:59Z)';

/**
 * Reads a timestamp parameter as `YYYY-MM-DDTHH:MM:SSZ` (UTC, whole seconds), or null when it is
 * none of the accepted forms or not a real instant (no 30 February). Fractions of a second are
 * dropped, so the instant is never later than the one asked for; an offset is applied; a day
 * alone is its last second in UTC.
 */
export function normaliseInstant(text: string): string | null {
  const day = DAY_ONLY.exec(text)?.[1];
  if (day !== undefined) return isRealDay(day) ? `${day}T23:59:59Z` : null;
  const match = DATE_TIME.exec(text);
  if (!match) return null;
  const [, date, hours, minutes, seconds, zone] = match as unknown as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  if (!isRealDay(date)) return null;
  const offset = zone.toUpperCase() === 'Z' ? 'Z' : zone;
  const instant = new Date(`${date}T${hours}:${minutes}:${seconds}${offset}`);
  if (Number.isNaN(instant.getTime())) return null;
  const normalised = formatTimestamp(instant);
  // An offset can carry a day of year 0000 or 9999 out of the four-digit years.
  return /^\d{4}-/.test(normalised) ? normalised : null;
}

/** Whether a YYYY-MM-DD day exists (no 30 February). */
export function isRealDay(day: string): boolean {
  const date = new Date(`${day}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === day;
}
