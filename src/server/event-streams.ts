import { PassThrough } from 'node:stream';
import { FastResponse } from 'srvx';
import { eventsGone } from '../api/v1/events.ts';
import { ApiError, invalidParameter } from '../contract/errors.ts';
import { PARAMS } from '../contract/params.ts';
import type { ReleaseEvent } from '../events/event.ts';
import { type EventFilters, type EventView, eventFilter } from '../events/event-filter.ts';
import { EventGoneError, type EventLog, openEventLog, readAllAfter } from '../events/event-log.ts';
import { isUsableStatus, type KeyStatus } from '../keys/key-record.ts';
import type { StoreLayout } from '../store/layout.ts';
import type { ResponseHeaders } from './response-headers.ts';
import type { SnapshotManager } from './snapshot-manager.ts';

/** Limits of the streams (config eventStreams). */
export interface EventStreamLimits {
  /** A comment line this often keeps proxies from closing an idle stream. */
  heartbeatMs: number;
  /** Open streams per key, and per anonymous client address (its rate-limit bucket). */
  perKey: number;
  perAddress: number;
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

/** Events read from the log per step while catching up. */
const PAGE = 1000;
/** How long a client waits before reconnecting after the stream ends (the `retry:` field). */
const RETRY_MS = 3000;

/** The `end` message of a stream whose key may no longer read it (docs/api/events.md). */
function streamEnd(reason: string): { reason: string; message: string } {
  return {
    reason: `key_${reason}`,
    message: `the key of this stream is ${reason}; the stream ends (reconnecting with it is refused with 401)`,
  };
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

/**
 * Creates the streams of /api/v1/events with Accept: text/event-stream (docs/api/events.md). A
 * stream first sends what the log holds after the resume point (Last-Event-ID or `after`; none:
 * from now), then, each time the server switches to a new snapshot (SnapshotManager.onSwitch, no
 * polling), the events after the last one looked at. Slots are counted in this process.
 */
export function createEventStreams(
  deps: {
    snapshots: SnapshotManager;
    layout: StoreLayout;
    log: (entry: Record<string, unknown>) => void;
    /**
     * The state of a stream's key now (null: the key is gone), asked at each heartbeat: a stream
     * whose key was revoked, expired or rotated out ends within one heartbeat interval.
     */
    keyStatus?: (keyId: string) => Promise<KeyStatus | null>;
  },
  limits: EventStreamLimits,
): EventStreams {
  const slots = new Map<string, number>();
  /** The open streams' bodies, each with its read of the log. */
  const open = new Map<PassThrough, () => void>();
  const log: EventLog = openEventLog(deps.layout, { head: () => deps.snapshots.current()?.id ?? null });

  return {
    count: (slot) => slots.get(slot) ?? 0,
    wake() {
      for (const pump of open.values()) pump();
    },
    close() {
      for (const body of open.keys()) body.end();
      open.clear();
    },
    async open(stream) {
      const slot = stream.keyId ? `key:${stream.keyId}` : stream.addressBucket;
      const limit = stream.keyId ? limits.perKey : limits.perAddress;
      if ((slots.get(slot) ?? 0) >= limit)
        throw new ApiError(
          'rate_limited',
          `at most ${limit} event streams may be open ${stream.keyId ? 'per key' : 'per client address without a key'}; close one (or read the JSON pages of /api/v1/events)`,
          { headers: { 'Retry-After': String(Math.max(1, Math.ceil(RETRY_MS / 1000))) } },
        );
      const lastEventId = stream.request.headers.get('last-event-id');
      if (lastEventId !== null && !PARAMS.after.schema.safeParse(lastEventId.trim()).success)
        throw invalidParameter('Last-Event-ID', PARAMS.after.expected);
      const accept = eventFilter(stream.filters, stream.view);
      let position = lastEventId?.trim() || stream.after || log.end();
      // What the log holds after the resume point, read before answering: a 410 is still possible.
      let backlog: ReleaseEvent[];
      try {
        ({ events: backlog, next_after: position } = await readAllAfter(log, position, accept));
      } catch (error) {
        if (error instanceof EventGoneError) throw eventsGone(error);
        throw error;
      }
      slots.set(slot, (slots.get(slot) ?? 0) + 1);
      const body = new PassThrough();
      // A write racing the client's disconnect must not become an unhandled 'error'.
      body.on('error', () => {});
      const send = (text: string) => {
        if (!body.destroyed && !body.writableEnded) body.write(text);
      };
      let pumping: Promise<void> = Promise.resolve();
      const pump = () => {
        pumping = pumping.then(async () => {
          try {
            for (;;) {
              const page = await log.read(position, PAGE, accept);
              for (const event of page.events) send(formatEventMessage(event));
              const moved = page.next_after !== position;
              position = page.next_after;
              if (!moved || body.destroyed) break;
            }
          } catch (error) {
            // The resume point left the log (pruned meanwhile): the client reconnects and gets the 410.
            deps.log({ event: 'event_stream_ended', error: (error as Error).message });
            body.end();
          }
        });
      };
      open.set(body, pump);
      const unsubscribe = deps.snapshots.onSwitch(() => pump());
      const { keyId } = stream;
      const checkKey = async () => {
        let status: KeyStatus | null;
        try {
          status = await deps.keyStatus!(keyId!);
        } catch {
          // The key store is unreachable: the stream goes on (requests are refused meanwhile).
          return;
        }
        if (status !== null && isUsableStatus(status)) return;
        const reason = status ?? 'removed';
        send(
          `: the key of this stream is ${reason}\nevent: end\ndata: ${JSON.stringify(streamEnd(reason))}\n\n`,
        );
        deps.log({ event: 'event_stream_ended', key_id: keyId, reason: `key_${reason}` });
        body.end();
      };
      const heartbeat = setInterval(() => {
        send(': heartbeat\n\n');
        if (keyId !== null && deps.keyStatus) void checkKey();
      }, limits.heartbeatMs);
      heartbeat.unref();
      body.once('close', () => {
        clearInterval(heartbeat);
        unsubscribe();
        open.delete(body);
        const left = (slots.get(slot) ?? 1) - 1;
        if (left > 0) slots.set(slot, left);
        else slots.delete(slot);
      });
      send(`retry: ${RETRY_MS}\n: events after ${position ?? 'the first snapshot'}\n\n`);
      for (const event of backlog) send(formatEventMessage(event));
      // A switch between the backlog read and the subscription: read once more.
      pump();
      const { headers } = stream;
      headers.set('Content-Type', 'text/event-stream; charset=utf-8');
      headers.set('Cache-Control', 'no-store');
      headers.set('X-Accel-Buffering', 'no');
      return new FastResponse(body as unknown as ReadableStream, {
        status: 200,
        statusText: 'OK',
        headers: headers.toPairs(),
      });
    },
  };
}
