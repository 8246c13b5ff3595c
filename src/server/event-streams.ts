import type { ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';
import { FastResponse } from 'srvx';
import { eventsGone } from '../api/v1/events.ts';
import { ApiError, invalidParameter } from '../contract/errors.ts';
import { PARAMS } from '../contract/params.ts';
import type { ReleaseEvent } from '../events/event.ts';
import { type EventFilters, type EventView, eventFilter } from '../events/event-filter.ts';
import { EventGoneError, type EventLog, openEventLog } from '../events/event-log.ts';
import type { KeyChangeListener } from '../keys/follow-key-changes.ts';
import type { KeyRecord } from '../keys/key-record.ts';
import type { StoreLayout } from '../store/layout.ts';
import type { ResponseHeaders } from './response-headers.ts';
import type { SnapshotManager } from './snapshot-manager.ts';
import { guardStreamKey, type StreamKeyGuard } from './stream-key-guard.ts';
import { createStreamWriter } from './stream-writer.ts';

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
}

/** Events read from the log per step; a stream holds at most one step's events at a time. */
const PAGE = 100;
/** How long a client waits before reconnecting after the stream ends (the `retry:` field). */
const RETRY_MS = 3000;
/** Bytes one stream may hold unsent; events are under 20 KB, so only a stuck client reaches it. */
const MAX_UNSENT_BYTES = 1024 * 1024;

/** The `end` message of a stream whose key may no longer read it (docs/api/events.md). */
function streamEnd(reason: string): string {
  const data = {
    reason: `key_${reason}`,
    message: `the key of this stream is ${reason}; the stream ends (reconnecting with it is refused with 401)`,
  };
  return `: the key of this stream is ${reason}\nevent: end\ndata: ${JSON.stringify(data)}\n\n`;
}

/** Whether the request asks for the stream (Accept names text/event-stream). */
export function wantsEventStream(request: Request): boolean {
  return (
    request.method === 'GET' && /(^|,)\s*text\/event-stream\b/i.test(request.headers.get('accept') ?? '')
  );
}

/** One event as an SSE message: `id:` its id, `event:` its type, `data:` the event as one JSON line. */
export function formatEventMessage(event: ReleaseEvent): string {
  return `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/** One open stream, as the registry sees it. */
interface OpenStream {
  keyId: string | null;
  guard: StreamKeyGuard | null;
  /** Reads the log from where the stream is and sends what its client may see. */
  pump(): void;
  end(): void;
}

/**
 * Creates the streams of /api/v1/events with Accept: text/event-stream (docs/api/events.md). A
 * stream first sends what the log holds after the resume point (Last-Event-ID or `after`; none:
 * from now), then, each time the server switches to a new snapshot (SnapshotManager.onSwitch, no
 * polling), the events after the last one looked at. Slots are counted in this process.
 */
export function createEventStreams(deps: EventStreamDeps, limits: EventStreamLimits): EventStreams {
  const slots = new Map<string, number>();
  const open = new Set<OpenStream>();
  const log: EventLog = openEventLog(deps.layout, { head: () => deps.snapshots.current()?.id ?? null });
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
      for (const stream of open) stream.pump();
    },
    close() {
      for (const stream of open) stream.end();
      open.clear();
    },
    async open(stream) {
      const slot = stream.keyId ? `key:${stream.keyId}` : stream.addressBucket;
      assertRoom(slot, stream.keyId !== null, slots, open.size, limits);
      // Taken before the first await: streams opened at the same moment must not all pass the limits.
      slots.set(slot, (slots.get(slot) ?? 0) + 1);
      const placeholder: OpenStream = { keyId: null, guard: null, pump: () => {}, end: () => {} };
      open.add(placeholder);
      try {
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
        const started = startStream(stream, start, accept);
        open.delete(placeholder);
        open.add(started.stream);
        started.body.once('close', () => {
          started.stream.guard?.close();
          open.delete(started.stream);
          release(slot);
        });
        return started.response;
      } catch (error) {
        open.delete(placeholder);
        release(slot);
        throw error;
      }
    },
  };

  /** Starts one stream's body, its heartbeat, its reads of the log and the watch over its key. */
  function startStream(
    stream: StreamRequest,
    start: string | null,
    accept: (event: ReleaseEvent) => boolean,
  ): { stream: OpenStream; body: PassThrough; response: Response } {
    const { keyId } = stream;
    const body = new PassThrough();
    // A write racing the client's disconnect must not become an unhandled 'error'.
    body.on('error', () => {});
    const writer = createStreamWriter(
      body,
      nodeResponseOf(stream.request),
      { drainMs: limits.drainMs, maxUnsentBytes: MAX_UNSENT_BYTES },
      (cut) =>
        deps.log({
          event: 'event_stream_cut',
          reason: cut.reason,
          unsent_bytes: cut.unsentBytes,
          key_id: keyId,
        }),
    );
    const guard =
      keyId !== null && deps.readKey
        ? guardStreamKey(keyId, {
            readKey: deps.readKey,
            now,
            onRefused: (reason) => {
              deps.log({ event: 'event_stream_ended', key_id: keyId, reason: `key_${reason}` });
              writer.end(streamEnd(reason));
            },
          })
        : null;
    let position = start;
    // Events not sent because the key could not be checked (the store did not answer): sent after
    // a check that can.
    let held = false;
    let pumping = false;
    let again = false;
    const readLog = async () => {
      for (;;) {
        const page = await log.read(position, PAGE, accept);
        if (page.events.length > 0 && guard) {
          const verdict = await guard.check();
          held = verdict === 'unknown';
          if (verdict !== 'usable') return;
        }
        for (const event of page.events) if (!(await writer.send(formatEventMessage(event)))) return;
        const moved = page.next_after !== position;
        position = page.next_after;
        if (!moved || writer.over) return;
      }
    };
    const pump = () => {
      // One read at a time; a wake during it reads again after it (a switch may have come between).
      if (pumping) {
        again = true;
        return;
      }
      pumping = true;
      void readLog()
        .catch((error: Error) => {
          // The resume point left the log (pruned meanwhile): the client reconnects and gets the 410.
          deps.log({ event: 'event_stream_ended', error: error.message });
          writer.end('');
        })
        .finally(() => {
          pumping = false;
          if (again && !writer.over) {
            again = false;
            pump();
          }
        });
    };
    const unsubscribe = deps.snapshots.onSwitch(() => pump());
    const heartbeat = setInterval(() => {
      writer.comment(': heartbeat\n\n');
      // The change feed may be down (then nothing is heard): the key is looked at here as well.
      if (guard)
        void guard.check().then((verdict) => {
          if (verdict === 'usable' && held) pump();
        });
    }, limits.heartbeatMs);
    heartbeat.unref();
    body.once('close', () => {
      clearInterval(heartbeat);
      unsubscribe();
    });
    void writer.send(`retry: ${RETRY_MS}\n: events after ${start ?? 'the first snapshot'}\n\n`);
    // The key is looked at once before anything is read (a revocation since the request's
    // authentication; the timer of its expiry), then the log from the resume point.
    if (guard) void guard.check().then(() => pump());
    else pump();
    const { headers } = stream;
    headers.set('Content-Type', 'text/event-stream; charset=utf-8');
    headers.set('Cache-Control', 'no-store');
    headers.set('X-Accel-Buffering', 'no');
    return {
      stream: { keyId, guard, pump, end: () => writer.end('') },
      body,
      response: new FastResponse(body as unknown as ReadableStream, {
        status: 200,
        statusText: 'OK',
        headers: headers.toPairs(),
      }),
    };
  }
}

/** Throws the 429 of a slot or of the instance that has no room for one more stream. */
function assertRoom(
  slot: string,
  keyed: boolean,
  slots: ReadonlyMap<string, number>,
  total: number,
  limits: EventStreamLimits,
): void {
  const retry = { headers: { 'Retry-After': String(Math.max(1, Math.ceil(RETRY_MS / 1000))) } };
  const limit = keyed ? limits.perKey : limits.perAddress;
  if ((slots.get(slot) ?? 0) >= limit)
    throw new ApiError(
      'rate_limited',
      `at most ${limit} event streams may be open ${keyed ? 'per key' : 'per client address without a key'}; close one (or read the JSON pages of /api/v1/events)`,
      retry,
    );
  if (total >= limits.max)
    throw new ApiError(
      'rate_limited',
      `this server has its most event streams open (${limits.max}); retry later or on another instance (or read the JSON pages of /api/v1/events)`,
      retry,
    );
}

/** The node:http response srvx pipes a stream's body into, when the runtime exposes it. */
function nodeResponseOf(request: Request): ServerResponse | null {
  return (request as Request & { runtime?: { node?: { res?: ServerResponse } } }).runtime?.node?.res ?? null;
}
