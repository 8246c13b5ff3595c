import type { ReleaseEvent } from '../events/event.ts';
import { maySee } from '../events/event-filter.ts';
import type { HookRecord } from './subscription-record.ts';

/**
 * Which events a subscription receives: its types, its series patterns, and its key's rights.
 * A series pattern is a series key in which `*` stands for any characters (`ecb.*`, `bls.CES*`,
 * `*`). An event about a whole release (`release.published`, `release.delayed`, no series) matches
 * a pattern whose source part, before the first dot, is its source or `*`: `ecb.*` receives the
 * ECB's releases and the ECB series' events.
 */

/** Longest pattern and most patterns a subscription may have. */
export const MAX_PATTERN_LENGTH = 200;
export const MAX_PATTERNS = 100;

const PATTERN = /^[A-Za-z0-9_.*:-]+$/;

/** Describes what is wrong with a series pattern, or returns null. */
export function describePatternProblem(pattern: string): string | null {
  if (pattern.length > MAX_PATTERN_LENGTH)
    return `a series pattern must be at most ${MAX_PATTERN_LENGTH} characters`;
  if (!PATTERN.test(pattern))
    return `series pattern "${pattern}" may hold only letters, digits, "_", ".", ":", "-" and "*"`;
  return null;
}

function globMatches(pattern: string, text: string): boolean {
  const parts = pattern.split('*');
  if (parts.length === 1) return pattern === text;
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  if (!text.startsWith(first) || text.length < first.length + last.length || !text.endsWith(last))
    return false;
  let at = first.length;
  const end = text.length - last.length;
  for (const middle of parts.slice(1, -1)) {
    const found = text.indexOf(middle, at);
    if (found === -1 || found + middle.length > end) return false;
    at = found + middle.length;
  }
  return true;
}

/** Tells whether an event falls under any of a subscription's series patterns. */
export function matchesSeries(patterns: readonly string[], event: ReleaseEvent): boolean {
  return patterns.some((pattern) => {
    if (event.series !== null) return globMatches(pattern, event.series);
    const sourcePart = pattern.split('.')[0]!;
    return sourcePart === '*' || globMatches(sourcePart, event.source);
  });
}

/**
 * Tells whether a key with these scopes may receive an event: public events for any key, the
 * others only with every scope the event names (`scopes` of the log's records), by default
 * `observations:read`, the scope that reads every source (as /api/v1/changes decides).
 */
export function mayReceive(event: ReleaseEvent, scopes: readonly string[]): boolean {
  // The rule of /api/v1/events, for the subscription's key.
  return maySee(event, {
    keyed: scopes.includes('observations:read'),
    cotHistory: scopes.includes('cot:history'),
  });
}

/** Tells whether a subscription receives an event (its key's scopes given). */
export function isForHook(hook: HookRecord, scopes: readonly string[], event: ReleaseEvent): boolean {
  if (hook.starts_at !== null && event.observed_at < hook.starts_at) return false;
  return (
    (hook.types as readonly string[]).includes(event.type) &&
    matchesSeries(hook.series, event) &&
    mayReceive(event, scopes)
  );
}
