import { join } from 'node:path';
import { EventSource } from 'eventsource';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES, type ReleaseEvent } from '../../../src/events/event.ts';
import { resolveLayout } from '../../../src/store/layout.ts';
import { readCurrentId } from '../../../src/store/manifest.ts';
import { LICENSED_FIXTURE, REPO_ROOT, SAMPLE_DATA } from '../../helpers/paths.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';

/**
 * /api/v1/events (docs/api/events.md) over HTTP on real publishes of sample files, no site build:
 * a first snapshot (ECB history, CFTC legacy and TFF 2013, the early PAYEMS vintage, also under the licensed
 * test vendor), then publishes made while clients listen. The `eventsource` npm client receives
 * them live, and resumes with Last-Event-ID on a second server over the same data directory.
 */

const REAL_CLOCK = () => new Date();
const LICENSED_KEY = 'testvendor.PAYEMS';
const EARLY = join(SAMPLE_DATA, 'bls/fred_PAYEMS_vintage_2025-08-02.csv');
const LATE = join(SAMPLE_DATA, 'bls/fred_PAYEMS_vintage_latest-2026-09_trimmed_2023-07_onward.csv');
const HEARTBEAT_MS = 150;
const STREAMS = { heartbeatMs: HEARTBEAT_MS, perKey: 3, perAddress: 2 };
// The anonymous request limit (60 a minute) is not this file's subject, and waitForSnapshot polls
// every 50 ms while a publish lands: on a slow machine the polls alone used to reach it (429s).
const ANONYMOUS_LIMIT = 100_000;

interface Page {
  data: ReleaseEvent[];
  meta: {
    view: string;
    after: string | null;
    next_after: string | null;
    oldest_snapshot: string;
    limit: number;
  };
}

/** An `eventsource` client that records every event of the log's types. */
class Listener {
  readonly events: ReleaseEvent[] = [];
  readonly source: EventSource;
  #waiters: Array<() => void> = [];

  constructor(url: () => string, headers: Record<string, string> = {}) {
    this.source = new EventSource(url(), {
      // The base URL is read per connection: a reconnect may go to another instance.
      fetch: (_input, init) =>
        fetch(url(), {
          ...init,
          headers: { ...(init?.headers as Record<string, string>), ...headers },
        }),
    });
    for (const type of EVENT_TYPES)
      this.source.addEventListener(type, (message) => {
        const event = JSON.parse(message.data) as ReleaseEvent;
        expect(message.lastEventId).toBe(event.id);
        expect(message.type).toBe(event.type);
        this.events.push(event);
        for (const waiter of this.#waiters) waiter();
      });
  }

  opened(): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.source.readyState === EventSource.OPEN) return resolve();
      this.source.addEventListener('open', () => resolve(), { once: true });
      this.source.addEventListener(
        'error',
        (error) => reject(new Error(`stream refused: ${error.message}`)),
        {
          once: true,
        },
      );
    });
  }

  /** Resolves once `done` holds of the events received, or fails after `ms`. */
  until(done: (events: ReleaseEvent[]) => boolean, ms = 20_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!done(this.events)) return;
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => reject(new Error(`timed out with ${this.events.length} events`)), ms);
      this.#waiters.push(check);
      check();
    });
  }
}

describe('event log over HTTP: SSE with resume, JSON pages, rights, limits', () => {
  const temp = createTempDir('mmds-events-');
  const dataDir = join(temp.dir, 'data');
  const env = { MMDS_DATA_DIR: dataDir, MMDS_DIST_DIR: join(temp.dir, 'dist') };
  const layout = resolveLayout(dataDir);
  let server: TestServer;
  let second: TestServer | undefined;
  let first: string;
  let key: string;
  let cotKey: string;
  const listeners: Listener[] = [];

  const run = async (argv: string[], at: string) => {
    const result = await runMmds(argv, env, () => new Date(at));
    expect(result.code, `${argv.join(' ')}: ${result.stderr}`).toBe(0);
  };
  const get = (path: string, token: string | null = null, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, {
      headers: { ...headers, ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    });
  const page = async (path: string, token: string | null = null): Promise<Page> => {
    const response = await get(path, token);
    const text = await response.text();
    expect(response.status, `${path}: ${text}`).toBe(200);
    return JSON.parse(text) as Page;
  };
  /** Every event the caller sees after `after`, page by page. */
  const readAll = async (query: string, token: string | null = null, after: string | null = null) => {
    const out: ReleaseEvent[] = [];
    for (;;) {
      const body = await page(`/api/v1/events?limit=7${query}${after ? `&after=${after}` : ''}`, token);
      out.push(...body.data);
      if (body.meta.next_after === after) return out;
      after = body.meta.next_after;
    }
  };
  const listen = (query = '', headers: Record<string, string> = {}) => {
    const listener = new Listener(() => `${(second ?? server).url}/api/v1/events${query}`, headers);
    listeners.push(listener);
    return listener;
  };
  const waitForSnapshot = async (target: TestServer, id: string) => {
    for (let i = 0; i < 200; i++) {
      const response = await fetch(`${target.url}/api/v1/events?limit=1`);
      await response.arrayBuffer();
      if (response.headers.get('x-snapshot-id') === id) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`server never switched to ${id}`);
  };

  beforeAll(async () => {
    const t1 = '2026-11-20T10:00:00Z';
    await run(['ingest', 'catalog', join(REPO_ROOT, 'data/catalog/catalog.yaml')], t1);
    await run(['ingest', 'catalog', join(LICENSED_FIXTURE, 'catalog.yaml')], t1);
    await run(['ingest', 'ecb', join(SAMPLE_DATA, 'ecb/eurofxref-hist_2025-01-02_to_2026-04-13.csv')], t1);
    await run(
      ['ingest', 'cftc', join(SAMPLE_DATA, 'cftc/legacy_futures_only_2025_selected_markets.txt')],
      t1,
    );
    // A year of weekly TFF reports: more than the public window of 12 per market.
    await run(['ingest', 'cftc', join(SAMPLE_DATA, 'cftc/tff_futures_only_2013_selected_markets.txt')], t1);
    for (const series of ['bls.CES0000000001', LICENSED_KEY])
      await run(['ingest', 'fred', EARLY, '--series', series, '--vintage', '2025-08-01'], t1);
    await run(['publish'], t1);
    first = readCurrentId(layout)!;
    server = await startTestServer({
      dataDir,
      distDir: join(temp.dir, 'no-dist'),
      pollMs: 100,
      eventStreams: STREAMS,
      anonymousLimit: ANONYMOUS_LIMIT,
    });
    const issue = async (scopes: string) => {
      const result = await runMmds(
        ['--json', 'keys', 'issue', '--org', 'Events Org', '--scopes', scopes, '--rate-limit', '100000'],
        env,
        REAL_CLOCK,
      );
      expect(result.code, result.stderr).toBe(0);
      return (JSON.parse(result.stdout) as { key: string }).key;
    };
    key = await issue('observations:read');
    cotKey = await issue('observations:read,cot:history');
  });

  afterAll(async () => {
    for (const listener of listeners) listener.source.close();
    await server?.close();
    await second?.close();
    temp.remove();
  });

  it('pages the log as JSON: anonymous callers get public events only, a key also the licensed ones', async () => {
    const anonymous = await readAll('');
    const keyed = await readAll('', key);
    expect(anonymous.length).toBeGreaterThan(0);
    expect(anonymous.every((e) => e.public)).toBe(true);
    expect(keyed.filter((e) => e.public)).toEqual(anonymous);
    expect(keyed.some((e) => e.series === LICENSED_KEY)).toBe(true);
    expect(anonymous.some((e) => e.source === 'testvendor')).toBe(false);
    // Old COT reports (outside the 12 latest) need cot:history as well.
    const withHistory = await readAll('', cotKey);
    const oldCot = withHistory.filter((e) => e.scopes?.includes('cot:history'));
    expect(oldCot.length).toBeGreaterThan(0);
    expect(keyed.filter((e) => e.scopes?.includes('cot:history'))).toEqual([]);
    // One page of everything equals the pages of seven.
    const whole = await page('/api/v1/events?limit=1000', key);
    expect(whole.data).toEqual(keyed);
    expect(whole.meta).toMatchObject({ view: 'keyed', after: null, oldest_snapshot: first, limit: 1000 });
    const anon = await get('/api/v1/events');
    expect(anon.headers.get('cache-control')).toBe('public, max-age=5');
    expect(anon.headers.get('vary')!.split(/,\s*/)).toContain('Accept');
  });

  it('names each release by one stable key (data.release) and its human name (data.release_name)', async () => {
    const firstSnapshot = (await readAll('', cotKey)).filter((e) => e.snapshot === first);
    const published = firstSnapshot.filter((e) => e.type === 'release.published');
    const names = published.map((e) => `${e.source} ${e.data.release} ${e.data.release_name}`).sort();
    // The COT legacy and TFF reports are one release, the Commitments of Traders; the licensed test
    // vendor has no release calendar: its source id and its catalog name.
    expect(names.filter((n) => !n.startsWith('testvendor '))).toEqual([
      'bls bls-employment-situation Employment Situation',
      'cftc cftc-commitments-of-traders Commitments of Traders',
      'ecb ecb-euro-foreign-exchange-reference-rates Euro foreign exchange reference rates',
    ]);
    const vendor = published.find((e) => e.source === 'testvendor')!;
    expect(vendor.data.release).toBe('testvendor');
    expect(vendor.data.release_name).not.toBe('testvendor');
    // Each series event names the release of its source's release.published.
    for (const event of firstSnapshot.filter((e) => e.type !== 'release.published')) {
      const release = published.find((e) => e.source === event.source)!;
      expect([event.data.release, event.data.release_name]).toEqual([
        release.data.release,
        release.data.release_name,
      ]);
    }
  });

  it('filters by source, series pattern and type, in JSON and in the stream alike', async () => {
    const all = await readAll('', key);
    const bySource = await readAll('&source=ecb', key);
    expect(bySource).toEqual(all.filter((e) => e.source === 'ecb'));
    expect(bySource.length).toBeGreaterThan(1);
    const pattern = await readAll('&series=bls.CES*,testvendor.*&type=series.released', key);
    expect(pattern.map((e) => e.series).sort()).toEqual(['bls.CES0000000001', LICENSED_KEY]);
    // The rule of hooks add --series: a release event matches by the pattern's source part; `*` is everything.
    const releases = await readAll('&series=ecb.*&type=release.published', key);
    expect(releases.length).toBeGreaterThan(0);
    expect(releases).toEqual(all.filter((e) => e.source === 'ecb' && e.type === 'release.published'));
    expect(await readAll('&series=*', key)).toEqual(all);
    const types = await readAll('&type=release.published', null);
    expect(types.length).toBeGreaterThan(0);
    expect(types.every((e) => e.type === 'release.published' && e.public)).toBe(true);
    const bad = await get('/api/v1/events?type=series.deleted');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe('invalid_parameter');
  });

  it('streams new events live after a publish, resumes with Last-Event-ID on a second server without gap or duplicate', async () => {
    const before = await readAll('', cotKey);
    const end = before.at(-1)!.id;
    const anonymous = listen();
    const keyed = listen('', { Authorization: `Bearer ${key}` });
    const filtered = listen('?type=series.revised&series=bls.*');
    await Promise.all([anonymous.opened(), keyed.opened(), filtered.opened()]);
    // Streams start at the end of the log: nothing of the first snapshot is sent again.
    const t2 = '2026-11-21T10:00:00Z';
    for (const series of ['bls.CES0000000001', LICENSED_KEY])
      await run(['ingest', 'fred', LATE, '--series', series, '--vintage', '2026-10-02'], t2);
    await run(['ingest', 'ecb', join(SAMPLE_DATA, 'ecb/eurofxref-daily.xml')], t2);
    await run(['publish'], t2);
    const s2 = readCurrentId(layout)!;
    const expectedPublic = await (async () => {
      await waitForSnapshot(server, s2);
      return readAll('', null, end);
    })();
    const expectedKeyed = await readAll('', key, end);
    expect(expectedPublic.length).toBeGreaterThan(1);
    expect(expectedKeyed.some((e) => e.series === LICENSED_KEY && e.type === 'series.revised')).toBe(true);
    await anonymous.until((events) => events.length >= expectedPublic.length);
    await keyed.until((events) => events.length >= expectedKeyed.length);
    await filtered.until((events) => events.length >= 1);
    expect(anonymous.events).toEqual(expectedPublic);
    expect(keyed.events).toEqual(expectedKeyed);
    expect(filtered.events).toEqual(
      expectedPublic.filter((e) => e.type === 'series.revised' && e.series!.startsWith('bls.')),
    );
    const revision = filtered.events[0]!;
    expect(revision.data.count).toBeGreaterThan(0);
    // Anonymous listeners never saw a licensed event.
    expect([...anonymous.events, ...filtered.events].every((e) => e.public)).toBe(true);
    keyed.source.close();
    filtered.source.close();

    // The first server goes away (its streams end); a publish lands meanwhile; a second server
    // over the same data directory takes over, and the client reconnects to it by itself.
    await server.close();
    const t3 = '2026-11-22T10:00:00Z';
    const t4 = '2026-11-23T10:00:00Z';
    await run(
      [
        'ingest',
        'bls',
        join(SAMPLE_DATA, 'bls/bls_api_v2_sae_north_dakota_mining_2014_2015.json'),
        '--collected-at',
        '2016-02-01T17:33:08Z',
      ],
      t3,
    );
    await run(['ingest', 'cftc', join(SAMPLE_DATA, 'cftc/tff_futures_only_2026_selected_markets.txt')], t3);
    await run(['publish'], t3);
    const s3 = readCurrentId(layout)!;
    // A poll of an hour: the second server hears of the publish below only by its watch of CURRENT.
    second = await startTestServer({
      dataDir,
      distDir: join(temp.dir, 'no-dist'),
      pollMs: 3_600_000,
      eventStreams: STREAMS,
      anonymousLimit: ANONYMOUS_LIMIT,
    });
    server = second;
    const third = await readAll('', null, expectedPublic.at(-1)!.id);
    expect(third.length).toBeGreaterThan(0);
    expect(third.every((e) => e.snapshot === s3)).toBe(true);
    await anonymous.until((events) => events.length >= expectedPublic.length + third.length, 30_000);
    expect(anonymous.events).toEqual([...expectedPublic, ...third]);

    // A publish while it listens reaches the stream without waiting for the server's poll: the
    // server watches CURRENT (src/store/watch-current.ts).
    // BLS release vintages: public events (a COT year this old would be outside the public window).
    await run(
      [
        'ingest',
        'bls',
        join(SAMPLE_DATA, 'bls/ces_total_nonfarm_change_release_vintages_2025-12_to_2026-07.json'),
      ],
      t4,
    );
    await run(['publish'], t4);
    const s4 = readCurrentId(layout)!;
    await anonymous.until((events) => events.some((e) => e.snapshot === s4), 30_000);
    const ids = anonymous.events.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    anonymous.source.close();
  });

  it('announces a release the calendar expected and that has not landed (release.delayed) once, over two servers, between snapshots', async () => {
    // Only the clock is mocked: the real calendars expect the ECB reference rates of Thursday
    // 26 November 2026 at 16:00 Frankfurt (15:00 UTC), but the store's ECB data ends on 13 April:
    // it does not follow the ECB then, and says nothing of its releases (the bundled sample's
    // first start). On Tuesday 14 April at 16:00 Frankfurt (14:00 UTC) it does.
    let clock = new Date('2026-11-26T16:00:00Z');
    const options = {
      dataDir,
      distDir: join(temp.dir, 'no-dist'),
      pollMs: 100,
      eventStreams: STREAMS,
      anonymousLimit: ANONYMOUS_LIMIT,
      delays: { minutes: 30, checkMs: 50 },
      now: () => clock,
    };
    const servers = [await startTestServer(options), await startTestServer(options)];
    try {
      const head = readCurrentId(layout)!;
      const before = await readAll('');
      const stream = new Listener(() => `${servers[0]!.url}/api/v1/events?type=release.delayed`);
      listeners.push(stream);
      await stream.opened();
      const pause = () => new Promise((resolve) => setTimeout(resolve, 400));
      await pause();
      expect(await readAll('&type=release.delayed', null, before.at(-1)!.id)).toEqual([]);
      // Within the 30 minutes of grace: nothing is delayed yet.
      clock = new Date('2026-04-14T14:10:00Z');
      await pause();
      expect(await readAll('&type=release.delayed', null, before.at(-1)!.id)).toEqual([]);
      clock = new Date('2026-04-14T15:00:00Z');
      await stream.until((events) => events.some((e) => e.source === 'ecb'));
      // Both servers kept checking: still one event per release.
      await pause();
      const delayed = await readAll('&type=release.delayed', null, before.at(-1)!.id);
      const ids = delayed.map((e) => e.data.release_id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(stream.events).toEqual(delayed);
      const ecb = delayed.find((e) => e.source === 'ecb')!;
      expect(ecb).toMatchObject({
        type: 'release.delayed',
        snapshot: head,
        series: null,
        // Noticed at 15:00, not back-dated to the scheduled 14:00.
        observed_at: '2026-04-14T15:00:00Z',
        public: true,
        data: {
          // The release as release.published names it (the stable key), and its human name.
          release: 'ecb-euro-foreign-exchange-reference-rates',
          release_name: 'Euro foreign exchange reference rates',
          release_id: 'ecb-euro-foreign-exchange-reference-rates-20260414T140000Z',
          scheduled_at: '2026-04-14T14:00:00Z',
          grace_minutes: 30,
        },
      });
      // Its id comes after the head snapshot's own events, in the same numbering.
      const all = await readAll('');
      const published = all.filter((e) => e.type === 'release.published' && e.source === 'ecb');
      expect(published.length).toBeGreaterThan(0);
      expect(published.every((e) => e.data.release === ecb.data.release)).toBe(true);
      expect(published.every((e) => e.data.release_name === ecb.data.release_name)).toBe(true);
      const own = all.filter((e) => e.snapshot === head && e.type !== 'release.delayed');
      expect(all.slice(all.length - delayed.length)).toEqual(delayed);
      expect(delayed.map((e) => e.id)).toEqual(delayed.map((_, i) => `${head}:${own.length + i + 1}`));
      // The next snapshot's events come after it; a check on that snapshot does not repeat it.
      await run(
        [
          'ingest',
          'bls',
          join(SAMPLE_DATA, 'bls/bls_api_v2_cps_situation_2015.json'),
          '--collected-at',
          '2016-02-01T17:33:08Z',
        ],
        '2026-11-26T17:00:00Z',
      );
      await run(['publish'], '2026-11-26T17:00:00Z');
      const next = readCurrentId(layout)!;
      for (const target of [server, ...servers]) await waitForSnapshot(target, next);
      clock = new Date('2026-04-14T16:05:00Z');
      await pause();
      const after = await readAll('', null, ecb.id);
      expect(after.length).toBeGreaterThan(0);
      expect(after.every((e) => e.snapshot === next)).toBe(true);
      expect(
        after.some((e) => e.type === 'release.delayed' && e.data.release_id === ecb.data.release_id),
      ).toBe(false);
      stream.source.close();
    } finally {
      for (const target of servers) await target.close();
    }
  });

  it('answers 410 in the error envelope, linking to /changes, for an id older than the log or unknown', async () => {
    for (const after of ['20200101T000000Z-00000000:1', `${first}:99999`]) {
      const response = await get(`/api/v1/events?after=${after}`);
      expect(response.status).toBe(410);
      expect(response.headers.get('link')).toBe(`</api/v1/changes?since=${first}>; rel="alternate"`);
      const body = (await response.json()) as {
        error: { code: string; message: string; request_id: string };
      };
      expect(body.error.code).toBe('gone');
      expect(body.error.message).toContain(`/api/v1/changes?since=${first}`);
      const stream = await get('/api/v1/events', null, {
        Accept: 'text/event-stream',
        'Last-Event-ID': after,
      });
      expect(stream.status).toBe(410);
      expect(((await stream.json()) as { error: { code: string } }).error.code).toBe('gone');
    }
    const malformed = await get('/api/v1/events', null, {
      Accept: 'text/event-stream',
      'Last-Event-ID': 'x',
    });
    expect(malformed.status).toBe(400);
    await malformed.arrayBuffer();
  });

  it('ends a stream whose key is revoked or expires, with a last `end` event saying why, within a heartbeat', async () => {
    const issue = async (extra: string[]) => {
      const result = await runMmds(
        ['--json', 'keys', 'issue', '--org', 'Events Org', '--scopes', 'observations:read', ...extra],
        env,
        REAL_CLOCK,
      );
      expect(result.code, result.stderr).toBe(0);
      return JSON.parse(result.stdout) as { id: string; key: string };
    };
    /** Opens a keyed stream and resolves with all it sent once the server ends it. */
    const untilEnded = async (token: string, onOpen: () => Promise<void>) => {
      const response = await fetch(`${server.url}/api/v1/events`, {
        headers: { Accept: 'text/event-stream', Authorization: `Bearer ${token}` },
        signal: AbortSignal.timeout(20_000),
      });
      expect(response.status).toBe(200);
      const reader = response.body!.getReader();
      let text = '';
      while (!text.includes(': heartbeat')) text += new TextDecoder().decode((await reader.read()).value);
      await onOpen();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return text;
        text += new TextDecoder().decode(value);
      }
    };
    const revoked = await issue([]);
    const text = await untilEnded(revoked.key, async () => {
      const result = await runMmds(['keys', 'revoke', revoked.id], env, REAL_CLOCK);
      expect(result.code, result.stderr).toBe(0);
    });
    const end = /event: end\ndata: (.+)\n\n$/.exec(text);
    expect(end, text).not.toBeNull();
    expect(JSON.parse(end![1]!)).toMatchObject({ reason: 'key_revoked' });
    expect(text).toContain(': the key of this stream is revoked\n');
    // A key that expires while its stream is open: the stream ends after the expiry.
    const expiry = new Date(Date.now() + 3_000);
    const expiring = await issue(['--expires', `${expiry.toISOString().slice(0, 19)}Z`]);
    const expired = await untilEnded(expiring.key, async () => {});
    expect(Date.now()).toBeGreaterThanOrEqual(Math.floor(expiry.getTime() / 1000) * 1000);
    expect(expired).toContain('"reason":"key_expired"');
    // Reconnecting with either key is refused.
    for (const token of [revoked.key, expiring.key])
      expect((await get('/api/v1/events', token, { Accept: 'text/event-stream' })).status).toBe(401);
  });

  it('sends heartbeats, limits open streams per address and per key (429), and frees a slot when a stream closes', async () => {
    const openStream = async (token: string | null = null) => {
      const controller = new AbortController();
      const response = await fetch(`${server.url}/api/v1/events`, {
        headers: { Accept: 'text/event-stream', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
        signal: controller.signal,
      });
      return { response, close: () => controller.abort() };
    };
    const a = await openStream();
    expect(a.response.status).toBe(200);
    expect(a.response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const reader = a.response.body!.getReader();
    let text = '';
    while (!text.includes(': heartbeat')) text += new TextDecoder().decode((await reader.read()).value);
    expect(text).toMatch(/^retry: \d+\n/);
    const b = await openStream();
    expect(b.response.status).toBe(200);
    const refused = await openStream();
    expect(refused.response.status).toBe(429);
    const body = (await refused.response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('rate_limited');
    expect(body.error.message).toContain('at most 2 event streams');
    expect(Number(refused.response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // A key has its own limit (3 here), apart from the address's.
    const keyed = [await openStream(key), await openStream(key), await openStream(key)];
    for (const stream of keyed) expect(stream.response.status).toBe(200);
    const fourth = await openStream(key);
    expect(fourth.response.status).toBe(429);
    await fourth.response.arrayBuffer();
    // Closing a stream frees its slot (the server sees the disconnect shortly after).
    a.close();
    let again = await openStream();
    for (let i = 0; again.response.status === 429 && i < 100; i++) {
      await again.response.arrayBuffer();
      await new Promise((resolve) => setTimeout(resolve, 50));
      again = await openStream();
    }
    expect(again.response.status).toBe(200);
    for (const stream of [b, again, ...keyed]) stream.close();
  });
});
