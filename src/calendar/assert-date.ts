const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** True when `date` is a real calendar day written `YYYY-MM-DD`. */
export function isDate(date: string): boolean {
  // The round trip rejects days the Date parser would roll over (2025-02-30 → 2025-03-02).
  const parsed = new Date(`${date}T00:00:00Z`);
  return DATE.test(date) && !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === date;
}

/** Throws a RangeError unless `date` is a real calendar day written `YYYY-MM-DD`. */
export function assertDate(date: string): void {
  if (!isDate(date)) throw new RangeError(`not a date (YYYY-MM-DD): ${JSON.stringify(date)}`);
}
