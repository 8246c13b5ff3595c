import { eventsGone } from '../api/v1/events.ts';
import { ApiError, invalidParameter } from '../contract/errors.ts';
import { NO_STORE } from '../contract/header-rules.ts';
import { PARAMS } from '../contract/params.ts';
import { type EventFilters, type EventView, eventFilter } from '../events/event-filter.ts';
import { EventGoneError, type EventLog, openEventLog } from '../events/event-log.ts';
import type { KeyChangeListener } from '../keys/follow-key-changes.ts';
import type { KeyRecord } from '../keys/key-record.ts';
import type { StoreLayout } from '../store/layout.ts';
import { type EventStream, RETRY_MS, startEventStream } from './event-stream.ts';
import type { ResponseHeaders } from './response-headers.ts';
import type { SnapshotManager } from './snapshot-manager.ts';
import type { SharedStreamSlots } from './stream-slots.ts';

/** Limits of the streams (config eventStreams). */
export interface EventStreamLimits {
  /** A comment line this often keeps proxies from closing an idle stream. */
  heartbeatMs: number;
  /** Open streams per key, and per anonymous client address (its rate-limit bucket). */
  perKey: number;
  perAddress: number;
  /** Open streams of the whole instance, whoever opened them. */
  max: number;
  /** Longest a client may take nothing of what was sent to it (ms) before its stream is cut. */
  drainMs: number;
}

/** One stream request, authorised and validated by dispatch. */
export interface StreamRequest {
  request: Request;
  headers: ResponseHeaders;
  /** The key's id, or null for an anonymous caller. */
  keyId: string | null;
  /** The anonymous caller's rate-limit bucket (`ip:<address or IPv6 prefix>`). */
  addressBucket: string;
  /** `after` of the query (Last-Event-ID, when sent, wins: it is where a reconnecting client was). */
  after: string | null;
  filters: EventFilters;
  view: EventView;
}

/** The open Server-Sent Event streams of a server. */
export interface EventStreams {
  /** Opens a stream (throws ApiErrors: 410 for an id the log lacks, 429 past the limits). */
  open(stream: StreamRequest): Promise<Response>;
  /** Streams open now, by slot (`key:<id>` or `ip:<bucket>`). */
  count(slot: string): number;
  /**
   * Reads the log again for every stream: events can come without a switch (release.delayed,
   * noticed-events.ts), so the server calls this after each check for them.
   */
  wake(): void;
  /** Ends every stream (the server is closing). */
  close(): void;
}

/** What the streams need of the server. */
export interface EventStreamDeps {
  snapshots: SnapshotManager;
  layout: StoreLayout;
  log: (entry: Record<string, unknown>) => void;
  /** The record of a stream's key in the store, never a cache (null: there is none). */
  readKey?: (keyId: string) => Promise<KeyRecord | null>;
  /**
   * Subscribes to the key change feed (follow-key-changes.ts): a stream whose key it names is
   * checked at once. Without it (memory storage), the heartbeat's check is the only one.
   */
  onKeyChange?: (listener: KeyChangeListener) => () => void;
  /** The clock of key expiries (default the real one). */
  now?: () => Date;
  /**
   * Places shared by every instance (Redis, stream-slots.ts): the per-key and per-address limits
   * then hold across the fleet. Without it, or while Redis does not answer, they hold per instance.
   */
  sharedSlots?: SharedStreamSlots;
}

/** Whether the request asks for the stream (Accept names text/event-stream). */
export function wantsEventStream(request: Request): boolean {
  return (
    request.method === 'GET' && /(^|,)\s*text\/event-stream\b/i.test(request.headers.get('accept') ?? '')
  );
}

/**
 * Creates the streams of /api/v1/events with Accept: text/event-stream (docs/api/events.md). A
 * stream first sends what the log holds after the resume point (Last-Event-ID or `after`; none:
 * from now), then, each time the server switches to a new snapshot (SnapshotManager.onSwitch, no
 * polling), the events after the last one looked at. Streams are counted in this process, per key,
 * per address and in all (the limits answer 429); with shared places (Redis), the per-key and
 * per-address counts are the fleet's.
 */
export function createEventStreams(deps: EventStreamDeps, limits: EventStreamLimits): EventStreams {
  const slots = new Map<string, number>();
  const open = new Set<EventStream>();
  /** Streams that passed the limits and are not started yet (their resume point is being read). */
  let starting = 0;
  let sharedFailed = false;
  // Set by close(): a stream still starting then (awaiting the log) is refused, not left open to
  // hold the server's close for ever.
  let closed = false;
  /** A place in the fleet's count of the slot; null without shared places or while Redis fails. */
  const takeShared = async (slot: string, keyed: boolean): Promise<string | null> => {
    if (!deps.sharedSlots) return null;
    const limit = keyed ? limits.perKey : limits.perAddress;
    let place: string | null;
    try {
      place = await deps.sharedSlots.take(slot, limit);
      sharedFailed = false;
    } catch (error) {
      // The instance's own count still holds; said once per outage.
      if (!sharedFailed) deps.log({ event: 'stream_limits_local', reason: (error as Error).message });
      sharedFailed = true;
      return null;
    }
    if (place === null) throw slotFull(limit, keyed);
    return place;
  };
  // Bumped by wake() (events noticed between snapshots): the streams' reads of one head and
  // generation share one look at the files (event-log.ts).
  let generation = 0;
  const log: EventLog = openEventLog(deps.layout, {
    head: () => deps.snapshots.current()?.id ?? null,
    generation: () => generation,
  });
  const now = deps.now ?? (() => new Date());
  // A change of a key (null: of any key, unheard) makes its streams look at it now, not at the
  // next heartbeat: a revoked key's stream ends as soon as the store says so.
  deps.onKeyChange?.((id) => {
    for (const stream of open)
      if (stream.guard && (id === null || stream.keyId === id)) void stream.guard.check();
  });
  const release = (slot: string) => {
    const left = (slots.get(slot) ?? 1) - 1;
    if (left > 0) slots.set(slot, left);
    else slots.delete(slot);
  };

  return {
    count: (slot) => slots.get(slot) ?? 0,
    wake() {
      generation++;
      for (const stream of open) stream.pump();
    },
    close() {
      closed = true;
      for (const stream of open) stream.end();
      open.clear();
      deps.sharedSlots?.close();
    },
    async open(stream) {
      if (closed) return shuttingDown(stream.headers);
      const slot = stream.keyId ? `key:${stream.keyId}` : stream.addressBucket;
      assertRoom(slot, stream.keyId !== null, slots, open.size + starting, limits);
      // Taken before the first await: streams opened at the same moment must not all pass the limits.
      slots.set(slot, (slots.get(slot) ?? 0) + 1);
      starting++;
      let place: string | null = null;
      const giveBack = () => {
        if (place !== null) void deps.sharedSlots?.release(slot, place).catch(() => {});
        place = null;
      };
      try {
        place = await takeShared(slot, stream.keyId !== null);
        const lastEventId = stream.request.headers.get('last-event-id');
        if (lastEventId !== null && !PARAMS.after.schema.safeParse(lastEventId.trim()).success)
          throw invalidParameter('Last-Event-ID', PARAMS.after.expected);
        const accept = eventFilter(stream.filters, stream.view);
        const start = lastEventId?.trim() || stream.after || log.end();
        // The resume point read before answering, so that an id the log lacks is still a 410.
        try {
          await log.read(start, 1, accept);
        } catch (error) {
          if (error instanceof EventGoneError) throw eventsGone(error);
          throw error;
        }
        if (closed) {
          starting--;
          release(slot);
          giveBack();
          return shuttingDown(stream.headers);
        }
        const started = startEventStream({
          request: stream.request,
          headers: stream.headers,
          keyId: stream.keyId,
          start,
          accept,
          log,
          snapshots: deps.snapshots,
          ...(deps.readKey ? { readKey: deps.readKey } : {}),
          now,
          heartbeatMs: limits.heartbeatMs,
          drainMs: limits.drainMs,
          logLine: deps.log,
        });
        starting--;
        open.add(started);
        started.body.once('close', () => {
          open.delete(started);
          release(slot);
          giveBack();
        });
        return started.response;
      } catch (error) {
        starting--;
        release(slot);
        giveBack();
        throw error;
      }
    },
  };
}

/**
 * The answer to a stream request that reaches a server shutting down (a keep-alive connection
 * opened before its close): a stream that ends at once, on a connection that closes after it.
 * The client reconnects after `retry:` as after any ended stream, to this address again (another
 * instance, or this one restarted). Never a 503: an EventSource gives up for good on any status
 * but 200.
 */
function shuttingDown(headers: ResponseHeaders): Response {
  headers.set('Content-Type', 'text/event-stream; charset=utf-8');
  headers.set('Cache-Control', NO_STORE);
  headers.set('Connection', 'close');
  return new Response(`retry: ${RETRY_MS}\n: the server is shutting down; reconnect\n\n`, {
    status: 200,
    headers: headers.toPairs(),
  });
}

/** Throws the 429 of a slot or of the instance that has no room for one more stream. */
function assertRoom(
  slot: string,
  keyed: boolean,
  slots: ReadonlyMap<string, number>,
  total: number,
  limits: EventStreamLimits,
): void {
  const limit = keyed ? limits.perKey : limits.perAddress;
  if ((slots.get(slot) ?? 0) >= limit) throw slotFull(limit, keyed);
  if (total >= limits.max)
    throw new ApiError(
      'rate_limited',
      `this server has as many event streams open as it allows (${limits.max}); retry later or on another instance (or read the JSON pages of /api/v1/events)`,
      retryAfter(),
    );
}

const retryAfter = () => ({ headers: { 'Retry-After': String(Math.max(1, Math.ceil(RETRY_MS / 1000))) } });

/** The 429 of a key or client address with as many streams open as it may have. */
function slotFull(limit: number, keyed: boolean): ApiError {
  return new ApiError(
    'rate_limited',
    `at most ${limit} event streams may be open ${keyed ? 'per key' : 'per client address without a key'}; close one (or read the JSON pages of /api/v1/events)`,
    retryAfter(),
  );
}
