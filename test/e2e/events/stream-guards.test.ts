import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { releaseId } from '../../../src/api/v1/releases.ts';
import type { ScheduledRelease } from '../../../src/calendar/release-schedule.ts';
import { noticeDelayedReleases } from '../../../src/events/noticed-events.ts';
import { resolveLayout } from '../../../src/store/layout.ts';
import { readCurrentId } from '../../../src/store/manifest.ts';
import { REPO_ROOT, SAMPLE_DATA } from '../../helpers/paths.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import { eventIdsOf, readEventStream } from '../../helpers/sse-reader.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';

/**
 * Issue 37, "no side doors", for event streams over HTTP with the `file` key store: a revoked or
 * expired key's stream ends at once (the key change feed and a timer at the expiry, not the next
 * heartbeat, which is a minute here), the instance refuses streams past MMDS_EVENTS_STREAMS_MAX,
 * and a client that stops reading is cut after MMDS_EVENTS_DRAIN_MS, the server holding a bounded
 * amount for it however much is published meanwhile.
 */

const HEARTBEAT_MS = 60_000;
/**
 * The bound the tests hold a revocation or expiry reaching an open stream to: it takes tens of ms,
 * a few hundred on a loaded machine (a publish runs in the same process), against the heartbeat's
 * minute before.
 */
const PROMPT_MS = 2_000;
const DRAIN_MS = 300;

describe('event streams: keys that stop being usable, the instance cap, clients that stop reading', () => {
  const temp = createTempDir('mmds-stream-guards-');
  const dataDir = join(temp.dir, 'data');
  const env = { MMDS_DATA_DIR: dataDir, MMDS_DIST_DIR: join(temp.dir, 'dist') };
  const layout = resolveLayout(dataDir);
  let server: TestServer;
  let clock = Date.parse('2026-11-20T10:00:00Z');

  const run = async (argv: string[], now: () => Date = () => new Date(clock)) => {
    const result = await runMmds(argv, env, now);
    expect(result.code, `${argv.join(' ')}: ${result.stderr}`).toBe(0);
    return result.stdout;
  };
  /** Publishes one more sample file (each makes events) and waits for the server to serve it. */
  const inputs = [
    ['ingest', 'ecb', join(SAMPLE_DATA, 'ecb/eurofxref-hist_2025-01-02_to_2026-04-13.csv')],
    [
      'ingest',
      'fred',
      join(SAMPLE_DATA, 'bls/fred_PAYEMS_vintage_latest-2026-09_trimmed_2023-07_onward.csv'),
      '--series',
      'bls.CES0000000001',
      '--vintage',
      '2026-10-02',
    ],
  ];
  const publishNext = async () => {
    clock += 24 * 3600_000;
    await run(inputs.shift()!);
    await run(['publish']);
    const id = readCurrentId(layout)!;
    for (let i = 0; i < 600; i++) {
      const response = await fetch(`${server.url}/api/v1/events?limit=1`);
      await response.arrayBuffer();
      if (response.headers.get('x-snapshot-id') === id) return id;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`the server never switched to ${id}`);
  };
  const issue = async (extra: string[] = []) =>
    JSON.parse(
      await run(
        ['--json', 'keys', 'issue', '--org', 'Guards Org', '--scopes', 'observations:read', ...extra],
        () => new Date(),
      ),
    ) as { id: string; key: string };
  const streamUrl = () => `${server.url}/api/v1/events`;

  beforeAll(async () => {
    await run(['ingest', 'catalog', join(REPO_ROOT, 'data/catalog/catalog.yaml')]);
    await run([
      'ingest',
      'fred',
      join(SAMPLE_DATA, 'bls/fred_PAYEMS_vintage_2025-08-02.csv'),
      '--series',
      'bls.CES0000000001',
      '--vintage',
      '2025-08-01',
    ]);
    await run(['publish']);
    // A first key makes the key directory exist before the server starts watching it.
    await issue();
    server = await startTestServer({
      dataDir,
      distDir: join(temp.dir, 'no-dist'),
      pollMs: 100,
      // The tests poll for snapshot switches: not the anonymous limit under test here.
      anonymousLimit: 100_000,
      eventStreams: { heartbeatMs: HEARTBEAT_MS, perKey: 5, perAddress: 1, drainMs: DRAIN_MS },
    });
  });

  afterAll(async () => {
    await server?.close();
    temp.remove();
  });

  it('ends a stream as soon as its key is revoked, and sends it nothing published after the revocation returned', async () => {
    const { id, key } = await issue();
    const stream = await readEventStream(streamUrl(), key);
    expect(stream.status).toBe(200);
    await stream.until('retry: ');
    await run(['keys', 'revoke', id], () => new Date());
    const revoked = performance.now();
    // A publish right after the revocation: none of its events may reach the stream.
    const published = publishNext();
    const endedAt = await stream.ended;
    const snapshot = await published;
    const text = stream.text();
    expect(text, text).toMatch(/event: end\ndata: \{"reason":"key_revoked".*\n\n$/);
    const after = stream.chunks
      .filter((chunk) => chunk.at > revoked)
      .map((chunk) => chunk.text)
      .join('');
    expect(eventIdsOf(after)).toEqual([]);
    expect(eventIdsOf(text).filter((event) => event.startsWith(snapshot))).toEqual([]);
    const ms = Math.round(endedAt - revoked);
    console.log(`revoke returned -> stream ended (file store): ${ms} ms`);
    expect(ms).toBeLessThan(PROMPT_MS);
    expect(server.logs).toContainEqual(
      expect.objectContaining({ event: 'event_stream_ended', key_id: id, reason: 'key_revoked' }),
    );
    expect(
      (await fetch(streamUrl(), { headers: { Authorization: `Bearer ${key}`, Accept: 'text/event-stream' } }))
        .status,
    ).toBe(401);
  });

  it('ends a stream at its key expiry, not at the next heartbeat', async () => {
    // Whole seconds (the record's format), at least three seconds ahead.
    const expiresAt = Math.ceil((Date.now() + 3_000) / 1000) * 1000;
    const { key } = await issue(['--expires', `${new Date(expiresAt).toISOString().slice(0, 19)}Z`]);
    const stream = await readEventStream(streamUrl(), key);
    expect(stream.status).toBe(200);
    await stream.ended;
    const endedAt = Date.now();
    expect(stream.text()).toContain('"reason":"key_expired"');
    expect(endedAt).toBeGreaterThanOrEqual(expiresAt);
    console.log(`key expiry -> stream ended: ${endedAt - expiresAt} ms`);
    expect(endedAt - expiresAt).toBeLessThan(PROMPT_MS);
  });

  it('refuses a stream past the instance cap with 429 rate_limited, whoever asks, and takes one again when a stream closes', async () => {
    const capped = await startTestServer({
      dataDir,
      distDir: join(temp.dir, 'no-dist'),
      pollMs: 100,
      anonymousLimit: 100_000,
      eventStreams: { heartbeatMs: HEARTBEAT_MS, perKey: 5, perAddress: 5, max: 4 },
    });
    try {
      const url = `${capped.url}/api/v1/events`;
      const first = await issue(['--rate-limit', '1000']);
      const second = await issue(['--rate-limit', '1000']);
      // All at the same moment: the checks and the count must not race.
      const tokens = [first.key, first.key, first.key, second.key, second.key, null];
      const streams = await Promise.all(tokens.map((token) => readEventStream(url, token)));
      expect(streams.map((stream) => stream.status).sort()).toEqual([200, 200, 200, 200, 429, 429]);
      const refused = await fetch(url, { headers: { Accept: 'text/event-stream' } });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(refused.headers.get('cache-control')).toBe('no-store');
      const body = (await refused.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('rate_limited');
      expect(body.error.message).toContain('as many event streams open as it allows (4)');
      // Closing a stream frees its place (the server sees the disconnect shortly after).
      streams.find((stream) => stream.status === 200)!.close();
      let again = await readEventStream(url, null);
      for (let i = 0; again.status === 429 && i < 100; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        again = await readEventStream(url, null);
      }
      expect(again.status).toBe(200);
      for (const stream of [...streams, again]) stream.close();
    } finally {
      await capped.close();
    }
  });

  it('cuts a client that stops reading while megabytes are published, holding a bounded amount for it', async () => {
    const socket = await openRawStream(server.url);
    // 1,600 events of about 5 KB noticed by another process, then a publish wakes the stream.
    const head = readCurrentId(layout)!;
    const releases: ScheduledRelease[] = Array.from({ length: 1_600 }, (_, i) => ({
      source: 'ecb',
      name: `Slow reader test release ${i} ${'x'.repeat(2_200)}`,
      at: new Date(Date.parse('2026-11-01T00:00:00Z') + i * 60_000).toISOString().replace('.000Z', 'Z'),
      reference_period: '2026-11-01',
      basis: 'rule',
      note: null,
      source_url: null,
      series: ['ecb.USD'],
    }));
    const noticed = await noticeDelayedReleases(layout, {
      snapshot: head,
      delayed: releases,
      now: new Date(clock),
      graceMinutes: 30,
      releaseId: (r) => releaseId(r.source, r.name, r.at),
    });
    const bytes = noticed.reduce((sum, event) => sum + JSON.stringify(event).length, 0);
    expect(bytes).toBeGreaterThan(7_000_000);
    const before = performance.now();
    await publishNext();
    let cut: Record<string, unknown> | undefined;
    for (let i = 0; i < 300 && !cut; i++) {
      cut = server.logs.find((line) => line.event === 'event_stream_cut');
      if (!cut) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(cut, 'the server never cut the stream').toMatchObject({ reason: 'no_drain', key_id: null });
    const unsent = cut!.unsent_bytes as number;
    console.log(
      `slow reader: cut ${Math.round(performance.now() - before)} ms after the publish began; ${unsent} bytes unsent in the server of ${bytes} published`,
    );
    expect(unsent).toBeLessThan(512 * 1024);
    // The server closed the connection: reading again reaches its end well short of what was published.
    let received = 0;
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
    });
    socket.on('error', () => {});
    socket.resume();
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the socket is still open')), 10_000);
      socket.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    expect(received).toBeLessThan(bytes);
    // Its slot is free again (one stream per address here).
    const next = await readEventStream(streamUrl(), null);
    expect(next.status).toBe(200);
    next.close();
  });
});

/** A stream request on a raw socket that reads nothing: its buffers fill, then the server's. */
async function openRawStream(base: string): Promise<Socket> {
  const { hostname, port } = new URL(base);
  const socket = connect({ host: hostname, port: Number(port) });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.pause();
  socket.write(
    `GET /api/v1/events HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAccept: text/event-stream\r\n\r\n`,
  );
  // The stream starts at the end of the log when the server answers: wait for its first bytes.
  for (let i = 0; socket.readableLength === 0; i++) {
    if (i === 500) throw new Error('the server did not answer the stream request');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return socket;
}
