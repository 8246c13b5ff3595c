import { createHash } from 'node:crypto';

/** The revision in force for one (series, period), as far as planning needs it. */
export interface InForce {
  id: string;
  revision_number: number;
  fingerprint: string;
  observed_at: string;
}

/** A fact offered for appending: its key, what it says, and when it became known. */
export interface FactCandidate {
  series_key: string;
  period: string;
  fingerprint: string;
  observed_at: string;
}

/** Where a candidate ends up. */
export type RevisionDecision =
  | { kind: 'append'; id: string; revision_number: number; supersedes_id: string | null }
  | { kind: 'unchanged' }
  | { kind: 'stale'; in_force_observed_at: string };

/** The key of a (series, period) pair in maps. */
export function factKey(seriesKey: string, period: string): string {
  return `${seriesKey}\u0000${period}`;
}

/** A fact's id: derived from its key and revision, so the same history always has the same ids. */
export function createFactId(prefix: string, seriesKey: string, period: string, revision: number): string {
  const digest = createHash('sha256').update(`${seriesKey}\u0000${period}\u0000${revision}`).digest('hex');
  return `${prefix}_${digest.slice(0, 20)}`;
}

/**
 * Decides, for each candidate, whether it starts a chain, revises the value in force, repeats
 * it, or is older knowledge than what is in force. Candidates of one key are taken in
 * `observed_at` order (stable for ties), so a file holding several vintages builds a chain.
 * Older knowledge is never spliced into a chain: records are append-only and `observed_at`
 * never decreases along a chain, so such values are reported as stale instead.
 */
export function planRevisions(
  candidates: readonly FactCandidate[],
  inForce: ReadonlyMap<string, InForce>,
  idPrefix: string,
): RevisionDecision[] {
  const state = new Map(inForce);
  const order = candidates
    .map((candidate, index) => ({ candidate, index }))
    .sort(
      (a, b) =>
        compare(a.candidate.series_key, b.candidate.series_key) ||
        compare(a.candidate.period, b.candidate.period) ||
        compare(a.candidate.observed_at, b.candidate.observed_at) ||
        a.index - b.index,
    );
  const decisions: RevisionDecision[] = new Array(candidates.length);
  for (const { candidate, index } of order) {
    const key = factKey(candidate.series_key, candidate.period);
    const current = state.get(key);
    if (current && current.fingerprint === candidate.fingerprint) {
      decisions[index] = { kind: 'unchanged' };
      continue;
    }
    if (current && candidate.observed_at < current.observed_at) {
      decisions[index] = { kind: 'stale', in_force_observed_at: current.observed_at };
      continue;
    }
    const revision = (current?.revision_number ?? 0) + 1;
    const id = createFactId(idPrefix, candidate.series_key, candidate.period, revision);
    decisions[index] = { kind: 'append', id, revision_number: revision, supersedes_id: current?.id ?? null };
    state.set(key, {
      id,
      revision_number: revision,
      fingerprint: candidate.fingerprint,
      observed_at: candidate.observed_at,
    });
  }
  return decisions;
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
