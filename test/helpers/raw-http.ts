import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';

/**
 * Requests over node:http with the target on the request line exactly as given (a URL object
 * would normalise it, fetch would decode a compressed body), and the comparison of two answers
 * that the server's fast paths and its general path must give alike.
 */

/** One answer: status, header fields (names in lower case) and the bytes as sent. */
export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** The fields that differ between any two responses (ids, time, the counter moving). */
const PER_REQUEST = new Set([
  'x-request-id',
  'date',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'ratelimit',
]);

/**
 * Sends one request; `target` goes on the request line unchanged (a bare `?` stays). Headers as
 * a flat list (name, value, name, value...) are sent as listed, repeated names included.
 */
export function sendRaw(
  base: string,
  target: string,
  init: { method?: string; headers?: Record<string, string> | readonly string[] } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(base);
    const request = httpRequest({
      hostname,
      port,
      path: target,
      method: init.method ?? 'GET',
      headers: init.headers,
    });
    request.on('error', reject);
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(response.headers)) headers[name] = String(value);
        resolve({ status: response.statusCode!, headers, body: Buffer.concat(chunks) });
      });
    });
    request.end();
  });
}

/** Header fields without the per-request ones, for comparison. */
export function stableFields(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !PER_REQUEST.has(name)));
}

/** Expects the same status, the same fields (values but the per-request ones) and the same bytes. */
export function expectSameAnswer(fast: Reply, general: Reply, what: string): void {
  expect(fast.status, what).toBe(general.status);
  expect(stableFields(fast.headers), what).toEqual(stableFields(general.headers));
  expect(Object.keys(fast.headers).sort(), what).toEqual(Object.keys(general.headers).sort());
  expect(fast.body.equals(general.body), `${what}: body`).toBe(true);
}

/** The status `passOn` answers: what a fast path handed to the next listener. */
export const PASSED_ON = 599;

/** A stand-in for the listener behind a fast path (h3): answers PASSED_ON, with no body. */
export function passOn(_request: IncomingMessage, response: ServerResponse): void {
  response.writeHead(PASSED_ON);
  response.end();
}

/** Serves one node:http listener alone on a free loopback port. */
export async function listenAlone(
  listener: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<{ base: string; close: () => Promise<void> }> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
