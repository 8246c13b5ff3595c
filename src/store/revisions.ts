import { createHash } from 'node:crypto';
import type { KnowledgeMethod, KnowledgeTime } from '../model/records.ts';

/** One record already in the store, as far as planning needs it. */
export interface StoredFact {
  id: string;
  fingerprint: string;
  observed_at: string;
  method: KnowledgeMethod | null;
  /** The batch that holds it: ties of knowledge time and method keep arrival order. */
  batch_id: string;
}

/** A fact offered for appending: its key, what it says, and when it became known. */
export interface FactCandidate {
  series_key: string;
  period: string;
  fingerprint: string;
  observed_at: string;
  method: KnowledgeMethod;
  /** Where it goes if it turns out to correct a value already stored (see ProvenanceInput). */
  correction?: KnowledgeTime;
}

/** Where a candidate ends up. */
export type RevisionDecision =
  | {
      kind: 'append';
      id: string;
      observed_at: string;
      method: KnowledgeMethod;
      /** Inserted before knowledge the store already had (a late vintage or backfill). */
      backfill: boolean;
      /** Restamped with its correction time: a calendar gives first releases only. */
      corrected: boolean;
    }
  | { kind: 'unchanged' }
  | { kind: 'refused'; reason: string };

/**
 * Within one knowledge instant, which claim is the most specific: a vintage beats a publisher's
 * timestamp, which beats a calendar rule, which beats a mere collection time. The chain is
 * ordered by (observed_at, rank, batch), so at that instant the most specific claim is in force.
 */
export const METHOD_RANK: Readonly<Record<KnowledgeMethod, number>> = {
  collected: 0,
  estimated: 1,
  // An estimate from a rule, like `estimated` from a plan.
  release_rule: 1,
  later_release: 2,
  release_calendar: 3,
  publisher_timestamp: 4,
  vintage: 5,
};

/** Calendar times say when a period was first released; they cannot date a later change. */
export const FIRST_RELEASE_METHODS: ReadonlySet<KnowledgeMethod> = new Set([
  'release_calendar',
  'estimated',
  'release_rule',
]);

/**
 * Times the publisher states for a whole data set (a vintage, a dated release). Such a record is
 * kept even where it repeats the value before it: if an older vintage with another value arrives
 * later and lands between them, the repeat is what says the value changed back. Publish leaves
 * out repeats that stay redundant. Other records that repeat the value in force add nothing.
 */
export const STATED_METHODS: ReadonlySet<KnowledgeMethod> = new Set(['vintage', 'publisher_timestamp']);

/** The key of a (series, period) pair in maps. */
export function factKey(seriesKey: string, period: string): string {
  return `${seriesKey}\u0000${period}`;
}

/**
 * A fact's id: derived from what it says and when it became known, so that the same history
 * always has the same ids, whatever order its records arrived in.
 */
export function createFactId(
  prefix: string,
  seriesKey: string,
  period: string,
  observedAt: string,
  fingerprint: string,
): string {
  const digest = createHash('sha256')
    .update(`${seriesKey}\u0000${period}\u0000${observedAt}\u0000${fingerprint}`)
    .digest('hex');
  return `${prefix}_${digest.slice(0, 20)}`;
}

interface Entry {
  fingerprint: string;
  observed_at: string;
  rank: number;
  /** Batch id for stored records; a sentinel after every batch id for this batch's records. */
  order: string;
}

const THIS_BATCH = '\uffff';

/**
 * Decides, for each candidate, whether it adds knowledge to its (series, period) and where in
 * the revision log it belongs. The log is ordered by knowledge time, not by arrival: a vintage
 * that arrives late is inserted where it belongs. A value equal to the one in force at its
 * knowledge time adds nothing (but see STATED_METHODS). A calendar time dates a first release only, so a calendar-stamped
 * value that differs from what the store holds is a correction: it takes the candidate's
 * correction time (when it was published or collected), or is refused when there is none or it
 * is not later than the value it corrects, so that nothing is ever back-dated.
 *
 * The ingest runs the same rules in SQL (plan-facts.ts); this is their reference model, which
 * test/property/plan-facts.test.ts holds the SQL planner to.
 */
export function planRevisions(
  candidates: readonly FactCandidate[],
  stored: ReadonlyMap<string, readonly StoredFact[]>,
  idPrefix: string,
): RevisionDecision[] {
  const timelines = new Map<string, Entry[]>();
  const timelineOf = (key: string): Entry[] => {
    let timeline = timelines.get(key);
    if (!timeline) {
      timeline = (stored.get(key) ?? []).map((fact) => ({
        fingerprint: fact.fingerprint,
        observed_at: fact.observed_at,
        rank: METHOD_RANK[fact.method ?? 'collected'],
        order: fact.batch_id,
      }));
      timeline.sort(compareEntries);
      timelines.set(key, timeline);
    }
    return timeline;
  };
  const order = candidates
    .map((candidate, index) => ({ candidate, index }))
    .sort(
      (a, b) =>
        compare(a.candidate.series_key, b.candidate.series_key) ||
        compare(a.candidate.period, b.candidate.period) ||
        compare(a.candidate.observed_at, b.candidate.observed_at) ||
        METHOD_RANK[a.candidate.method] - METHOD_RANK[b.candidate.method] ||
        a.index - b.index,
    );
  const decisions: RevisionDecision[] = new Array(candidates.length);
  for (const { candidate, index } of order) {
    const timeline = timelineOf(factKey(candidate.series_key, candidate.period));
    decisions[index] = decide(candidate, timeline, idPrefix);
  }
  return decisions;
}

function decide(candidate: FactCandidate, timeline: Entry[], idPrefix: string): RevisionDecision {
  let time: KnowledgeTime = { observed_at: candidate.observed_at, method: candidate.method };
  let corrected = false;
  if (FIRST_RELEASE_METHODS.has(candidate.method) && timeline.length > 0) {
    const atRelease = inForceAt(timeline, entryOf(candidate.fingerprint, time));
    if (atRelease?.fingerprint === candidate.fingerprint) return { kind: 'unchanged' };
    // What the store knows now already says this: a first-release claim cannot add to it.
    if (timeline.at(-1)?.fingerprint === candidate.fingerprint) return { kind: 'unchanged' };
    if (!candidate.correction) {
      return {
        kind: 'refused',
        reason:
          `${candidate.series_key} ${candidate.period}: the value differs from the one stored, so it is a ` +
          'correction or revision, and the file carries no time it was published or collected; ' +
          'pass --collected-at (when the file was retrieved) or --observed-at',
      };
    }
    // A correction comes after the value it corrects, or the older value would supersede it.
    if (atRelease !== undefined && candidate.correction.observed_at <= atRelease.observed_at) {
      return {
        kind: 'refused',
        reason: earlyCorrectionReason(
          candidate.series_key,
          candidate.period,
          candidate.correction,
          atRelease.observed_at,
        ),
      };
    }
    time = candidate.correction;
    corrected = true;
  }
  const entry = entryOf(candidate.fingerprint, time);
  // The same value known at the same instant, by any method, is knowledge the store has.
  if (timeline.some((e) => e.observed_at === entry.observed_at && e.fingerprint === entry.fingerprint)) {
    return { kind: 'unchanged' };
  }
  const previous = inForceAt(timeline, entry);
  if (previous?.fingerprint === candidate.fingerprint) {
    const duplicate = previous.observed_at === entry.observed_at;
    if (duplicate || !STATED_METHODS.has(time.method)) return { kind: 'unchanged' };
  }
  if (previous && previous.observed_at === entry.observed_at && previous.rank === entry.rank) {
    return {
      kind: 'refused',
      reason:
        `${candidate.series_key} ${candidate.period}: two different values known at the same instant ` +
        `${entry.observed_at} (${time.method}); the store keeps one value per knowledge time`,
    };
  }
  const backfill = timeline.length > 0 && compareEntries(entry, timeline.at(-1)!) < 0;
  timeline.splice(insertionIndex(timeline, entry), 0, entry);
  return {
    kind: 'append',
    id: createFactId(
      idPrefix,
      candidate.series_key,
      candidate.period,
      time.observed_at,
      candidate.fingerprint,
    ),
    observed_at: time.observed_at,
    method: time.method,
    backfill,
    corrected,
  };
}

/** The refusal of a correction whose time is not later than that of the value it corrects. */
export function earlyCorrectionReason(
  seriesKey: string,
  period: string,
  correction: KnowledgeTime,
  correctedAt: string,
): string {
  return (
    `${seriesKey} ${period}: the correction's time ${correction.observed_at} (${correction.method}) is not ` +
    `later than ${correctedAt}, when the value it corrects became known; check --collected-at`
  );
}

function entryOf(fingerprint: string, time: KnowledgeTime): Entry {
  return { fingerprint, observed_at: time.observed_at, rank: METHOD_RANK[time.method], order: THIS_BATCH };
}

/** The last record at or before the entry's place in the log, i.e. the value in force there. */
function inForceAt(timeline: readonly Entry[], entry: Entry): Entry | undefined {
  const index = insertionIndex(timeline, entry);
  return index > 0 ? timeline[index - 1] : undefined;
}

function insertionIndex(timeline: readonly Entry[], entry: Entry): number {
  let low = 0;
  let high = timeline.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (compareEntries(timeline[middle]!, entry) <= 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

function compareEntries(a: Entry, b: Entry): number {
  return compare(a.observed_at, b.observed_at) || a.rank - b.rank || compare(a.order, b.order);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A stable hash of a JSON-able value (object keys sorted), for fingerprints and row hashes. */
export function hashCanonical(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => compare(a, b));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}
