import type { ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';
import { FastResponse } from 'srvx';
import { NO_STORE } from '../contract/header-rules.ts';
import type { ReleaseEvent } from '../events/event.ts';
import type { EventLog } from '../events/event-log.ts';
import type { KeyRecord } from '../keys/key-record.ts';
import type { ResponseHeaders } from './response-headers.ts';
import type { SnapshotManager } from './snapshot-manager.ts';
import { guardStreamKey, type StreamKeyGuard } from './stream-key-guard.ts';
import { createStreamWriter } from './stream-writer.ts';

/** Events read from the log per step; a stream holds at most one step's events at a time. */
const PAGE = 100;
/** How long a client waits before reconnecting after the stream ends (the `retry:` field). */
export const RETRY_MS = 3000;
/** Bytes one stream may hold unsent; events are under 20 KB, so only a stuck client reaches it. */
const MAX_UNSENT_BYTES = 1024 * 1024;

/** One running stream, as the set of open streams (event-streams.ts) sees it. */
export interface EventStream {
  /** The key it was opened with (null: anonymous). */
  keyId: string | null;
  /** The watch over its key (null: anonymous); checked when the key change feed names the key. */
  guard: StreamKeyGuard | null;
  /** Reads the log from where the stream is and sends what its client may see. */
  pump(): void;
  /** Ends it (the server is closing). */
  end(): void;
  /** Its body: 'close' once the stream is over, however it ended. */
  body: PassThrough;
  /** The answer to the request. */
  response: Response;
}

/** What one stream is told by event-streams.ts. */
export interface EventStreamOptions {
  request: Request;
  headers: ResponseHeaders;
  keyId: string | null;
  /** The last event id looked at before the stream starts (null: from the oldest). */
  start: string | null;
  accept: (event: ReleaseEvent) => boolean;
  log: EventLog;
  snapshots: SnapshotManager;
  readKey?: (keyId: string) => Promise<KeyRecord | null>;
  now: () => Date;
  heartbeatMs: number;
  drainMs: number;
  logLine: (entry: Record<string, unknown>) => void;
}

/** The `end` message of a stream whose key may no longer read it (docs/api/events.md). */
function streamEnd(reason: string): string {
  const data = {
    reason: `key_${reason}`,
    message: `the key of this stream is ${reason}; the stream ends (reconnecting with it is refused with 401)`,
  };
  return `: the key of this stream is ${reason}\nevent: end\ndata: ${JSON.stringify(data)}\n\n`;
}

/** Messages by event: the log's events are shared objects, so a release is serialised once, not per stream. */
const MESSAGES = new WeakMap<ReleaseEvent, string>();

/** One event as an SSE message: `id:` its id, `event:` its type, `data:` the event as one JSON line. */
export function formatEventMessage(event: ReleaseEvent): string {
  let message = MESSAGES.get(event);
  if (message === undefined) {
    message = `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
    MESSAGES.set(event, message);
  }
  return message;
}

/**
 * Starts one stream: its body (written through createStreamWriter, which waits for a slow client
 * and cuts a stuck one), its heartbeat, its reads of the log (on each snapshot switch and wake),
 * and for a keyed stream the watch over its key, read from the store before events are sent.
 */
export function startEventStream(options: EventStreamOptions): EventStream {
  const { keyId, log, accept } = options;
  const body = new PassThrough();
  // A write racing the client's disconnect must not become an unhandled 'error'.
  body.on('error', () => {});
  const writer = createStreamWriter(
    body,
    nodeResponseOf(options.request),
    { drainMs: options.drainMs, maxUnsentBytes: MAX_UNSENT_BYTES },
    (cut) =>
      options.logLine({
        event: 'event_stream_cut',
        reason: cut.reason,
        unsent_bytes: cut.unsentBytes,
        key_id: keyId,
      }),
  );
  const guard =
    keyId !== null && options.readKey
      ? guardStreamKey(keyId, {
          readKey: options.readKey,
          now: options.now,
          onRefused: (reason) => {
            options.logLine({ event: 'event_stream_ended', key_id: keyId, reason: `key_${reason}` });
            writer.end(streamEnd(reason));
          },
        })
      : null;
  let position = options.start;
  // Events not sent because the key could not be read (the store did not answer): sent once a
  // check can read it.
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
        options.logLine({ event: 'event_stream_ended', error: error.message });
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
  const unsubscribe = options.snapshots.onSwitch(() => pump());
  const heartbeat = setInterval(() => {
    writer.comment(': heartbeat\n\n');
    // The change feed may be down (then nothing is heard): the key is read here as well.
    if (guard)
      void guard.check().then((verdict) => {
        if (verdict === 'usable' && held) pump();
      });
  }, options.heartbeatMs);
  heartbeat.unref();
  body.once('close', () => {
    clearInterval(heartbeat);
    unsubscribe();
    guard?.close();
  });
  void writer.send(`retry: ${RETRY_MS}\n: events after ${options.start ?? 'the first snapshot'}\n\n`);
  // The key is read once before the log (a revocation since the request was authenticated; the
  // timer of its expiry), then the log from the resume point.
  if (guard) void guard.check().then(() => pump());
  else pump();
  const { headers } = options;
  headers.set('Content-Type', 'text/event-stream; charset=utf-8');
  headers.set('Cache-Control', NO_STORE);
  headers.set('X-Accel-Buffering', 'no');
  // The connection ends with the stream: a client's reconnect then opens a new one, never reusing
  // the socket of a server that ended its streams because it is closing.
  headers.set('Connection', 'close');
  return {
    keyId,
    guard,
    pump,
    end: () => writer.end(''),
    body,
    response: new FastResponse(body as unknown as ReadableStream, {
      status: 200,
      statusText: 'OK',
      headers: headers.toPairs(),
    }),
  };
}

/** The node:http response srvx pipes a stream's body into, when the runtime exposes it. */
function nodeResponseOf(request: Request): ServerResponse | null {
  return (request as Request & { runtime?: { node?: { res?: ServerResponse } } }).runtime?.node?.res ?? null;
}
