/** ALFRED's real time, as the vintage parameters and the vintage reader both use it (docs/api/vintages.md). */

/** ALFRED's bounds of real time: its earliest date and "the end of time". */
export const REALTIME_MIN = '1776-07-04';
export const REALTIME_MAX = '9999-12-31';
/** At most this many dates in vintage_dates. */
export const VINTAGE_DATES_MAX = 100;
/** The zone ALFRED's vintage dates are days of (St. Louis). */
export const REALTIME_ZONE = 'America/Chicago';
