import type { ReleaseEvent } from '../events/event.ts';
import { maySee } from '../events/event-filter.ts';
import { matchesSeries } from '../events/series-pattern.ts';
import type { HookRecord } from './subscription-record.ts';

/**
 * Which events a subscription receives: its types, its series patterns (the rule of
 * src/events/series-pattern.ts, shared with the `series` filter of /api/v1/events), and its key's
 * rights.
 */

/** Most patterns a subscription may have. */
export const MAX_PATTERNS = 100;

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
