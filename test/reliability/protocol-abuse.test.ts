import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.ts';
import { type RunningServer, startServer } from '../../src/server/start-server.ts';
import { createSampleSnapshot, type SnapshotFixture } from '../helpers/snapshot-fixture.ts';
import { findContractViolations } from './helpers/contract-checks.ts';
import { openRaw, type RawResponse, rawGet, sendRaw } from './helpers/raw-http.ts';

/**
 * Protocol abuse over raw sockets: oversized headers, an overlong URL, a thousand query
 * parameters, and slow clients that trickle their headers one byte a second (slowloris) while
 * other clients are served. The server runs with a 1 s headers timeout (10 s in service) so the
 * cut-off can be watched.
 */

const HEADERS_TIMEOUT_MS = 1_000;

describe('protocol abuse', () => {
  let sample: SnapshotFixture;
  let server: RunningServer;
  const logs: Record<string, unknown>[] = [];

  beforeAll(async () => {
    sample = await createSampleSnapshot();
    const config = loadConfig({ ...sample.env, PORT: '0', HOST: '127.0.0.1' }, process.cwd());
    server = await startServer(config, {
      log: (entry) => logs.push(entry),
      pollMs: 0,
      anonymousLimit: 100_000,
      headersTimeoutMs: HEADERS_TIMEOUT_MS,
    });
  });

  afterAll(async () => {
    await server?.close();
    sample?.remove();
  });

  function expectEnvelope(response: RawResponse, status: number, what: string): void {
    expect(response.status, `${what}: ${response.body.slice(0, 200)}`).toBe(status);
    expect(findContractViolations({ method: 'GET', target: '', ...response, status })).toEqual([]);
  }

  it('refuses at start an anonymous limit the limiter cannot enforce (not with a 500 per request)', async () => {
    const config = loadConfig({ ...sample.env, PORT: '0', HOST: '127.0.0.1' }, process.cwd());
    for (const anonymousLimit of [0, 1.5, 10_000_000]) {
      await expect(startServer(config, { log: () => {}, pollMs: 0, anonymousLimit })).rejects.toThrow(
        RangeError,
      );
    }
  });

  it('answers headers over 16 KB with a 431 envelope (or closes the connection)', async () => {
    for (const headers of [
      { 'X-Big': 'a'.repeat(20_000) },
      Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`X-H${i}`, 'b'.repeat(50)])),
      { Cookie: 'c'.repeat(17_000) },
    ]) {
      const response = await sendRaw(server.port, rawGet('/api/v1/status', headers));
      if (response.status === null) expect(response.ending).toBe('closed');
      else expectEnvelope(response, 431, 'oversized headers');
    }
  });

  it('answers a URL over 4096 bytes with a 414 envelope', async () => {
    for (const length of [4_100, 8_000, 15_000]) {
      const response = await sendRaw(server.port, rawGet(`/api/v1/fx/ecb?currency=${'U'.repeat(length)}`));
      expectEnvelope(response, 414, `URL of ${length}`);
      expect(JSON.parse(response.body).error.code).toBe('uri_too_long');
    }
  });

  it('answers a thousand query parameters with a 400 envelope', async () => {
    // A thousand distinct two-letter names fit under the URL limit.
    const distinct = Array.from({ length: 1_000 }, (_, i) => `${i.toString(36).padStart(2, 'a')}=`).join('&');
    for (const query of ['a=1&'.repeat(1_000), 'currency=USD&'.repeat(290), 'a&'.repeat(1_500), distinct]) {
      const response = await sendRaw(server.port, rawGet(`/api/v1/fx/ecb?${query}`));
      expectEnvelope(response, 400, `${query.slice(0, 20)}…`);
      expect(JSON.parse(response.body).error.code).toBe('invalid_parameter');
    }
  });

  it('cuts off clients that trickle their headers while answering everyone else', async () => {
    const started = performance.now();
    const slow: Array<{ socket: Socket; closedAfterMs: number | null; received: string }> = [];
    for (let i = 0; i < 20; i++) {
      const socket = await openRaw(server.port);
      const entry = { socket, closedAfterMs: null as number | null, received: '' };
      socket.on('data', (chunk) => {
        entry.received += chunk.toString('latin1');
      });
      socket.on('close', () => {
        entry.closedAfterMs = performance.now() - started;
      });
      socket.on('error', () => {});
      slow.push(entry);
    }
    const trickle = Buffer.from(
      `GET /api/v1/status HTTP/1.1\r\nHost: x\r\nX-Slow: ${'z'.repeat(100)}`,
      'latin1',
    );
    let sent = 0;
    const timer = setInterval(() => {
      for (const { socket } of slow) if (!socket.destroyed) socket.write(trickle.subarray(sent, sent + 1));
      sent += 1;
    }, 1_000);
    for (const { socket } of slow) socket.write(trickle.subarray(0, 1));
    // Meanwhile, ordinary requests on other connections.
    const latencies: number[] = [];
    try {
      while (performance.now() - started < 4 * HEADERS_TIMEOUT_MS) {
        const t0 = performance.now();
        const response = await fetch(`${server.url}/api/v1/status`);
        expect(response.status).toBe(200);
        await response.text();
        latencies.push(performance.now() - t0);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      clearInterval(timer);
    }
    for (const entry of slow) {
      // Cut off by the headers timeout (plus the server's checking interval), long before the
      // trickle would have finished and long before the 10 s of the default.
      expect(entry.closedAfterMs, 'slow client still connected').not.toBeNull();
      expect(entry.closedAfterMs!).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 50);
      expect(entry.closedAfterMs!).toBeLessThan(3 * HEADERS_TIMEOUT_MS);
      // Nothing was ever handled for it: no 200 went back.
      expect(entry.received).not.toMatch(/^HTTP\/1\.1 200/);
    }
    expect(sent).toBeLessThan(trickle.length);
    const closed = slow.map((entry) => Math.round(entry.closedAfterMs!));
    console.info(
      `slowloris: ${slow.length} clients cut after ${Math.min(...closed)}-${Math.max(...closed)} ms; ` +
        `${latencies.length} other requests answered meanwhile, slowest ${Math.round(Math.max(...latencies))} ms`,
    );
    expect(latencies.length).toBeGreaterThan(20);
    expect(Math.max(...latencies)).toBeLessThan(1_000);
    expect(logs.filter((entry) => entry.event === 'internal_error')).toEqual([]);
  }, 30_000);

  it('closes a connection that never sends a byte within the headers timeout', async () => {
    const started = performance.now();
    const response = await sendRaw(server.port, Buffer.alloc(0), 5 * HEADERS_TIMEOUT_MS);
    expect(response.ending).toBe('closed');
    expect(response.ms).toBeLessThan(3 * HEADERS_TIMEOUT_MS);
    expect(performance.now() - started).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 50);
  });
});
