import { blsFirstRelease, blsReleaseForSeries, blsSeriesMayBeRevised } from '../calendar/bls-calendar.ts';
import type { BlsCalendar, BlsRelease } from '../calendar/types.ts';
import type { KnowledgeTime, Timestamp } from '../model/records.ts';

/** The knowledge times of one BLS value: when it is known, and the time a correction would take. */
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
 * Works out when a BLS value became known. The BLS API serves today's values, so a value is
 * dated by its first release (the release that first carried its reference month, from the
 * shipped calendar; for a month whose release was cancelled, the next release that carried it)
 * only where that is proven: the file was collected before the program's next release, or the
 * series is never revised. A value collected after a later release that could have revised it is
 * known from the newest release before the collection (`later_release`); past the end of the
 * calendar, from the collection itself. An older print than that needs a vintage (ALFRED, the
 * CES release vintages), which the store places before it. Without a calendar entry only the
 * collection time is known. Null when the time cannot be worked out (the caller refuses): no
 * calendar entry or a revisable series, and no collection time.
 */
export function resolveBlsKnowledge(
  seriesId: string,
  period: string,
  context: BlsKnowledgeContext,
): BlsKnowledge | null {
  if (context.override !== undefined) return { observed_at: context.override, method: 'collected' };
  const release = blsReleaseForSeries(seriesId);
  const first = release === null ? null : blsFirstRelease(context.calendar, release, period);
  const collected: KnowledgeTime | null =
    context.collectedAt === null ? null : { observed_at: context.collectedAt, method: 'collected' };
  if (first === null || release === null) return collected;
  const firstTime: KnowledgeTime = { observed_at: first.observed_at, method: first.method };
  if (collected === null) return blsSeriesMayBeRevised(seriesId) ? null : firstTime;
  const latest = releaseInForce(context.calendar, release, collected);
  const correction = latest ?? collected;
  // Collected before any later release (or a series never revised): the first print is proven.
  // A collection before the first release is left for the ingest's bounds check to refuse.
  if (
    !blsSeriesMayBeRevised(seriesId) ||
    Date.parse(collected.observed_at) < Date.parse(first.observed_at) ||
    (latest !== null && Date.parse(latest.observed_at) <= Date.parse(first.observed_at))
  ) {
    return { ...firstTime, correction };
  }
  const known =
    latest === null ? collected : { observed_at: latest.observed_at, method: 'later_release' as const };
  return { ...known, correction };
}

/**
 * Whether a BLS value's time needs the collection time: a month the calendar covers of a series a
 * later release may revise (for the wording of the refusal when the file has none).
 */
export function blsNeedsCollection(seriesId: string, period: string, calendar: BlsCalendar): boolean {
  const release = blsReleaseForSeries(seriesId);
  return (
    release !== null && blsFirstRelease(calendar, release, period) !== null && blsSeriesMayBeRevised(seriesId)
  );
}

/**
 * The newest release of the program at or before the collection, as a calendar time; null past
 * the end of the shipped calendar (a later release may be missing from it: only the collection
 * time is certain) or before its start.
 */
function releaseInForce(
  calendar: BlsCalendar,
  release: BlsRelease,
  collected: KnowledgeTime,
): KnowledgeTime | null {
  const latest = calendar.latestReleaseAtOrBefore(release, collected.observed_at);
  const next = latest ? calendar.nextReleaseAfter(release, latest.time.observed_at) : null;
  if (latest === null || next === null) return null;
  return { observed_at: latest.time.observed_at, method: latest.time.method };
}
