/**
 * The release event log's record (issue 24). Publish writes a snapshot's events in the same
 * atomic step that switches CURRENT; Server-Sent Events, the JSON pages of /api/v1/events, webhook
 * deliveries and the MCP server's subscriptions all read this one shape.
 */

/** The kinds of event, in the order a consumer meets them within one snapshot. */
export const EVENT_TYPES = [
  'release.published',
  'series.released',
  'series.revised',
  'release.delayed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** A scope that unlocks events that are not public (ReleaseEvent.scopes). */
export type EventScope = 'observations:read' | 'cot:history';

/** One event of the log. Thin: under 20 KB serialised; larger changes link instead of listing. */
export interface ReleaseEvent {
  /** `<snapshot id>:<seq>`; seq counts from 1 within the snapshot, so ids are monotonic along the log. */
  id: string;
  type: EventType;
  /** The snapshot that made the event known (for `release.delayed`, the current one when observed). */
  snapshot: string;
  /** Source id (`ecb`, `cftc`, `bls`, ...). */
  source: string;
  /** The series key for `series.*` events, else null. */
  series: string | null;
  /** When the service knew it, UTC seconds (`YYYY-MM-DDTHH:MM:SSZ`); never earlier than the fact. */
  observed_at: string;
  /** Whether an anonymous caller may see it (the source is redistributable and not keyed-only). */
  public: boolean;
  /**
   * Added for the log's readers (optional, so records without it stay valid): the scopes a key
   * needs to see an event that is not public: `observations:read` (a licensed source), plus
   * `cot:history` for COT reports older than the public window. Absent: `observations:read`.
   */
  scopes?: EventScope[];
  /** Type-specific payload (docs/api/events.md). */
  data: Record<string, unknown>;
}

/** Reads the log in order: the events after `after` (null: from the oldest kept), at most `limit`. */
export interface EventFeed {
  after(after: string | null, limit: number): Promise<ReleaseEvent[]>;
}
