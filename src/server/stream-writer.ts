import type { ServerResponse } from 'node:http';
import type { PassThrough } from 'node:stream';

/** How much a stream may hold for a client that does not read, and for how long. */
export interface StreamBounds {
  /** Longest wait for a client to take what was sent (ms) before the stream is cut. */
  drainMs: number;
  /** Most bytes held in this process for one stream, not yet taken by its client. */
  maxUnsentBytes: number;
}

/** Why a stream was cut: it held too much, or its client took nothing for drainMs. */
export type StreamCut = { reason: 'no_drain' | 'unsent_bytes'; unsentBytes: number };

/** The one way text goes to an event stream's client (event-streams.ts). */
export interface StreamWriter {
  /**
   * Sends a message; while the client is behind (write() said so), waits for it to catch up, at
   * most drainMs. Resolves false when the stream is over (ended, closed or cut).
   */
  send(text: string): Promise<boolean>;
  /** Sends a comment now, unless the client is behind: a heartbeat would only add to its backlog. */
  comment(text: string): void;
  /** Sends a last message and ends the stream; a client that does not take it is cut after drainMs. */
  end(last: string): void;
  /** True once the stream is ended, closed or cut. */
  readonly over: boolean;
}

/**
 * Creates the writer of one stream's body (piped by srvx into `response`, the node:http response
 * when the runtime exposes it). Nothing is ever queued without limit: a message waits until the
 * client has taken the previous ones, a client that takes nothing for drainMs is cut, and so is a
 * stream whose unsent bytes (the body's buffers and the response's) would pass maxUnsentBytes.
 * Cutting destroys the body and the response, so the socket is closed and its buffers freed.
 */
export function createStreamWriter(
  body: PassThrough,
  response: ServerResponse | null,
  bounds: StreamBounds,
  onCut: (cut: StreamCut) => void,
): StreamWriter {
  const unsent = () => body.writableLength + body.readableLength + (response?.writableLength ?? 0);
  const isOver = () => body.destroyed || body.writableEnded;
  const cut = (reason: StreamCut['reason']) => {
    if (body.destroyed && (response === null || response.destroyed)) return;
    onCut({ reason, unsentBytes: unsent() });
    body.destroy();
    response?.destroy();
  };
  const fits = (text: string) => {
    if (unsent() + Buffer.byteLength(text) <= bounds.maxUnsentBytes) return true;
    cut('unsent_bytes');
    return false;
  };
  return {
    get over() {
      return isOver();
    },
    async send(text) {
      if (isOver() || !fits(text)) return false;
      if (body.write(text)) return true;
      if (!(await drained(body, bounds.drainMs))) cut('no_drain');
      return !isOver();
    },
    comment(text) {
      if (!isOver() && !body.writableNeedDrain && fits(text)) body.write(text);
    },
    end(last) {
      if (isOver() || !fits(last)) return;
      body.end(last);
      // An ended body still holds its bytes until the client reads them, and so does the response.
      const timer = setTimeout(() => cut('no_drain'), bounds.drainMs);
      timer.unref();
      (response ?? body).once('close', () => clearTimeout(timer));
    },
  };
}

/** Resolves true when the body drains or closes, false when drainMs pass first. */
function drained(body: PassThrough, drainMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      body.off('drain', onDrain);
      body.off('close', onDrain);
      resolve(ok);
    };
    const onDrain = () => done(true);
    const timer = setTimeout(() => done(false), drainMs);
    timer.unref();
    body.once('drain', onDrain);
    body.once('close', onDrain);
  });
}
