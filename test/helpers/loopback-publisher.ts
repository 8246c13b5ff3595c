import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { zipSync } from 'fflate';

/**
 * A misbehaviour for one path. Strings are shorthands: `status:503x2` (503 twice, then the
 * file), `status:404` (for ever), `truncate`, `slow`, `html`, `no-validators`.
 */
export type PublisherFault =
  | { kind: 'status'; status: number; times?: number; retryAfter?: string }
  | { kind: 'truncate' | 'slow' | 'html' | 'no-validators' }
  | string;

/** One request the publisher saw. */
export interface LoggedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  status: number;
}

/** An emulated API mounted under a path prefix (e.g. the BLS or FRED emulators). */
export interface PublisherApi {
  prefix: string;
  handle(req: IncomingMessage, res: ServerResponse): void | Promise<void>;
}

/** What the publisher serves. */
export interface LoopbackPublisherOptions {
  /** URL path under the root (no leading slash) → bytes, or a function giving the current bytes. */
  files: Record<string, Buffer | (() => Buffer)>;
  apis?: PublisherApi[];
}

/** A running loopback publisher. */
export interface LoopbackPublisher {
  /** Root URL with a trailing slash, e.g. `http://127.0.0.1:40123/`. */
  baseUrl: string;
  url(path: string): string;
  setFault(path: string, fault: PublisherFault | null): void;
  requests: LoggedRequest[];
  close(): Promise<void>;
}

// Fixed so that If-Modified-Since comparisons in tests do not depend on the clock.
const LAST_MODIFIED = 'Wed, 01 Jan 2025 00:00:00 GMT';

function parseFault(fault: PublisherFault): Exclude<PublisherFault, string> {
  if (typeof fault !== 'string') return fault;
  const status = /^status:(\d{3})(?:x(\d+))?$/.exec(fault.replace(/\s+/g, ''));
  if (status) {
    const times = status[2] === undefined ? undefined : Number(status[2]);
    return times === undefined
      ? { kind: 'status', status: Number(status[1]) }
      : { kind: 'status', status: Number(status[1]), times };
  }
  if (fault === 'truncate' || fault === 'slow' || fault === 'html' || fault === 'no-validators')
    return { kind: fault };
  throw new Error(`unknown fault "${fault}"`);
}

/** Zips files for a test: member name → bytes or the path of a file to read. */
export function zipFiles(members: Record<string, Buffer | string>): Buffer {
  const entries: Record<string, Uint8Array> = {};
  for (const [name, content] of Object.entries(members)) {
    entries[name] = typeof content === 'string' ? readFileSync(content) : content;
  }
  return Buffer.from(zipSync(entries));
}

/**
 * Starts a real HTTP server on 127.0.0.1 (random port) that serves files like a publisher:
 * ETag and Last-Modified, 304 on a matching If-None-Match / If-Modified-Since, 404 for unknown
 * paths, and per-path faults for retry, truncation, time-out and error-page tests.
 */
export async function startLoopbackPublisher(options: LoopbackPublisherOptions): Promise<LoopbackPublisher> {
  const faults = new Map<string, { fault: Exclude<PublisherFault, string>; used: number }>();
  const requests: LoggedRequest[] = [];

  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname).replace(/^\/+/, '');
    // 'close' rather than 'finish': a response cut off on purpose never finishes.
    res.on('close', () => {
      requests.push({ method: req.method ?? 'GET', path, headers: req.headers, status: res.statusCode });
    });
    const api = options.apis?.find((candidate) => path.startsWith(candidate.prefix.replace(/^\/+/, '')));
    if (api) {
      Promise.resolve(api.handle(req, res)).catch((error: unknown) => {
        res.statusCode = 500;
        res.end(String(error));
      });
      return;
    }
    serveFile(path, req, res);
  });

  function serveFile(path: string, req: IncomingMessage, res: ServerResponse): void {
    const entry = faults.get(path);
    const fault = entry?.fault;
    if (fault?.kind === 'status' && (fault.times === undefined || entry!.used < fault.times)) {
      entry!.used += 1;
      if (fault.retryAfter !== undefined) res.setHeader('retry-after', fault.retryAfter);
      res.writeHead(fault.status, { 'content-type': 'text/plain' }).end(`fault ${fault.status}\n`);
      return;
    }
    if (fault?.kind === 'html') {
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end('<!DOCTYPE html><html><body><h1>We are down for maintenance</h1></body></html>');
      return;
    }
    const source = options.files[path];
    if (source === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    const body = typeof source === 'function' ? source() : source;
    if (fault?.kind === 'slow') {
      // Headers go out, the body never does: the client must give up on its own time limit.
      res.writeHead(200, { 'content-length': String(body.length) });
      res.flushHeaders();
      return;
    }
    if (fault?.kind === 'truncate') {
      res.writeHead(200, { 'content-length': String(body.length) });
      res.write(body.subarray(0, Math.floor(body.length / 2)), () => res.socket?.destroy());
      return;
    }
    const headers: Record<string, string> = { 'content-length': String(body.length) };
    if (fault?.kind !== 'no-validators') {
      const etag = `"${createHash('sha256').update(body).digest('hex').slice(0, 16)}"`;
      headers.etag = etag;
      headers['last-modified'] = LAST_MODIFIED;
      const inm = req.headers['if-none-match'];
      const ims = req.headers['if-modified-since'];
      const fresh =
        inm !== undefined
          ? inm.split(',').some((tag) => tag.trim() === etag)
          : ims !== undefined && Date.parse(ims) >= Date.parse(LAST_MODIFIED);
      if (fresh) {
        res.writeHead(304, { etag, 'last-modified': LAST_MODIFIED }).end();
        return;
      }
    }
    res.writeHead(200, headers).end(body);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}/`;
  return {
    baseUrl,
    url: (path) => new URL(path.replace(/^\/+/, ''), baseUrl).toString(),
    setFault(path, fault) {
      if (fault === null) faults.delete(path);
      else faults.set(path, { fault: parseFault(fault), used: 0 });
    },
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
