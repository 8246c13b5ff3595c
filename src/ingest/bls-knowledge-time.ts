import { blsReleaseForSeries } from '../calendar/bls-calendar.ts';
import type { BlsCalendar, BlsRelease } from '../calendar/types.ts';
import type { KnowledgeTime, Timestamp } from '../model/records.ts';
import { isMonthPeriod } from './periods.ts';

/** How many later reference months to look at when a month's own release was cancelled. */
const CANCELLED_RELEASE_LOOKAHEAD = 3;

/** The knowledge times of one BLS value: its first release, and the time a correction would take. */
export interface BlsKnowledge extends KnowledgeTime {
  correction?: KnowledgeTime;
}

/** What the times of a file's values are worked out from. */
export interface BlsKnowledgeContext {
  calendar: BlsCalendar;
  /** --observed-at: the operator's time for every value. */
  override: Timestamp | undefined;
  /** When the file was retrieved, if known. */
  collectedAt: Timestamp | null;
}

/**
 * Works out when a BLS value became known. A value is dated by the release that first carried its
 * reference month (the shipped BLS calendar); where that release was cancelled (October 2025), by
 * the next release that carried the month. A value that turns out to change a stored one was
 * published by the newest release of its program before the file was collected. Without a
 * calendar entry only the collection time is known; without that either, null (the caller refuses).
 */
export function resolveBlsKnowledge(
  seriesId: string,
  period: string,
  context: BlsKnowledgeContext,
): BlsKnowledge | null {
  if (context.override !== undefined) return { observed_at: context.override, method: 'collected' };
  const release = blsReleaseForSeries(seriesId);
  const first = release === null ? null : firstRelease(context.calendar, release, period);
  const collected: KnowledgeTime | null =
    context.collectedAt === null ? null : { observed_at: context.collectedAt, method: 'collected' };
  if (first === null) return collected;
  const correction = release === null ? null : correctionTime(context.calendar, release, collected);
  return { ...first, ...(correction ? { correction } : {}) };
}

function firstRelease(calendar: BlsCalendar, release: BlsRelease, period: string): KnowledgeTime | null {
  if (!isMonthPeriod(period)) return null;
  const own = calendar.releaseOf(release, period);
  if (own) return { observed_at: own.observed_at, method: own.method };
  // Only a month inside the calendar can have had its release cancelled.
  if (calendar.releaseOf(release, addMonths(period, -1)) === null) return null;
  for (let ahead = 1; ahead <= CANCELLED_RELEASE_LOOKAHEAD; ahead++) {
    const time = calendar.releaseOf(release, addMonths(period, ahead));
    if (time) return { observed_at: time.observed_at, method: time.method };
  }
  return null;
}

function correctionTime(
  calendar: BlsCalendar,
  release: BlsRelease,
  collected: KnowledgeTime | null,
): KnowledgeTime | null {
  if (collected === null) return null;
  const latest = calendar.latestReleaseAtOrBefore(release, collected.observed_at);
  // Past the end of the shipped calendar only the collection time is certain.
  const next = latest ? calendar.nextReleaseAfter(release, latest.time.observed_at) : null;
  if (latest === null || next === null) return collected;
  return { observed_at: latest.time.observed_at, method: latest.time.method };
}

function addMonths(period: string, months: number): string {
  const [year, month] = period.split('-').map(Number) as [number, number];
  const index = year * 12 + (month - 1) + months;
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}`;
}
