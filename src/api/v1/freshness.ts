/** How often a source publishes, as the catalog says. */
export type Cadence = 'daily' | 'weekly' | 'monthly' | 'quarterly' | 'annual';

const DAY_MS = 86_400_000;

/**
 * Estimates when the next release is due from the last one and the cadence: the next weekday
 * for daily sources, a week, a month, a quarter or a year later otherwise. Publishers' holiday
 * calendars are not modelled; the value is an estimate and documented as one.
 */
export function estimateNextRelease(lastObservedAt: string, cadence: string): string {
  const date = new Date(lastObservedAt);
  switch (cadence as Cadence) {
    case 'daily':
      do date.setUTCDate(date.getUTCDate() + 1);
      while (date.getUTCDay() === 0 || date.getUTCDay() === 6);
      break;
    case 'weekly':
      date.setUTCDate(date.getUTCDate() + 7);
      break;
    case 'monthly':
      date.setUTCMonth(date.getUTCMonth() + 1);
      break;
    case 'quarterly':
      date.setUTCMonth(date.getUTCMonth() + 3);
      break;
    default:
      date.setUTCFullYear(date.getUTCFullYear() + 1);
  }
  return `${date.toISOString().slice(0, 19)}Z`;
}

/** A source is stale when nothing new has been observed for longer than its allowance. */
export function isStale(lastObservedAt: string, staleAfterDays: number, now: Date): boolean {
  return now.getTime() - new Date(lastObservedAt).getTime() > staleAfterDays * DAY_MS;
}
