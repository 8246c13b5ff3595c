import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCursor } from '../../src/api/v1/cursor.ts';
import { ROUTES, type RouteDefinition } from '../../src/contract/routes.ts';
import { quotedString } from '../../src/db/duckdb.ts';
import { openSnapshotDb } from '../../src/query/snapshot-db.ts';
import { listBatches } from '../../src/store/batches.ts';
import { resolveLayout } from '../../src/store/layout.ts';
import { startTestServer, type TestServer } from '../helpers/server-fixture.ts';
import { createTempDir } from '../helpers/temp-dir.ts';
import { findContractViolations, headerRecord } from './helpers/contract-checks.ts';
import { percentEncode } from './helpers/hostile-requests.ts';
import { createServedSample, issueTestKey, type ServedSample } from './helpers/served-sample.ts';

/**
 * SQL and DuckDB injection: every payload of the corpus goes into every slug and every query
 * parameter of every endpoint, anonymous and keyed, and into the bearer token. Each answer must
 * equal the answer to a well-formed but unknown value in the same place (same status and body
 * but for the request id), or be a 400/404 envelope. A canary file outside the data directory
 * holds a unique token that must never come back, and the files the payloads try to write must
 * never appear. Underneath, DuckDB itself is locked: file access off, configuration frozen.
 */

const canaryDir = createTempDir('mmds-canary-');
const TOKEN = `CANARY-${randomUUID()}`;
const CANARY = join(canaryDir.dir, 'canary.csv');
const WRITTEN = ['out.csv', 'copied.csv', 'attached.db', 'exported'].map((name) => join(canaryDir.dir, name));

const PAYLOADS: readonly string[] = [
  "'",
  "''",
  '"',
  '`',
  '\\',
  "';",
  '--',
  '/*',
  '*/ --',
  "' OR '1'='1",
  "' OR 1=1 --",
  '" OR ""="',
  '1 OR 1=1',
  "USD' --",
  "USD'/*",
  "'; DROP TABLE x; --",
  "'; DROP VIEW observations; --",
  "x'); DROP TABLE series; --",
  "' UNION SELECT * FROM read_csv('CANARY') --",
  "USD' UNION SELECT content, 1 FROM read_text('CANARY') --",
  "read_csv('/etc/passwd')",
  "read_csv('CANARY')",
  "read_csv_auto('CANARY')",
  "read_text('CANARY')",
  "(SELECT content FROM read_text('CANARY'))",
  "'||(SELECT content FROM read_text('CANARY'))||'",
  "COPY observations TO 'OUT/out.csv'",
  "'; COPY (SELECT 1) TO 'OUT/copied.csv'; --",
  "'; ATTACH 'OUT/attached.db' AS x; --",
  "ATTACH 'CANARY' AS c",
  "'; EXPORT DATABASE 'OUT/exported'; --",
  "'; INSTALL httpfs; LOAD httpfs; --",
  "'; PRAGMA database_list; --",
  'PRAGMA show_tables',
  "' UNION SELECT version() --",
  '1 UNION SELECT 1,2,3',
  "'; SET enable_external_access = true; --",
  "'; SET lock_configuration = false; --",
  "' AND glob('/etc/*') IS NOT NULL --",
  "'; CALL pragma_version(); --",
  '$1',
  '?',
  '%',
  '_',
  '*',
  '\u0000',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection payload, sent as is
  '${7*7}',
  '{{7*7}}',
].map((payload) => payload.replaceAll('CANARY', CANARY).replaceAll('OUT', canaryDir.dir));

/**
 * Parameters where `*` alone is the documented wildcard, not an injection: the events' series
 * pattern (docs/api/events.md, src/events/series-pattern.ts) means every series.
 */
const WILDCARD_PLACES: ReadonlySet<string> = new Set(['events series']);

/**
 * Free text: the series search finds series by the words of search_text (docs/api/series-search.md),
 * so a payload holding a word such as USD finds that series. Its answers are held to the contract
 * and to the canary checks below, not to the unknown value's body.
 */
const FREE_TEXT_PLACES: ReadonlySet<string> = new Set(['series-search search_text']);

/** A well-formed value of each parameter that names nothing in the sample (the baseline). */
const BENIGN: Record<string, string> = {
  slug: 'zz-unknown',
  country: 'ZZ',
  currency: 'ZZZ',
  region: 'atlantis',
  series: 'zz.UNKNOWN',
  as_of: '2001-01-01T00:00:00Z',
  from: '1901',
  to: '1902',
  observation_start: '1901',
  observation_end: '1902',
  base: 'ZZZ',
  date: '1901-01-02',
  limit: '1',
  cursor: encodeCursor({ period: '1900', revision_number: 1 }),
  format: 'json',
  report_type: 'legacy',
  source: 'zz-unknown',
  units: 'lin',
  frequency: 'a',
  aggregation: 'avg',
  shape: 'list',
  fill: 'none',
  // Issue 35's parameters.
  amount: '1',
  symbols: 'ZZZ',
  offset: '0',
  search_text: 'zzunknown',
  sort_order: 'desc',
  output_type: '1',
  realtime_start: '1901-01-01',
  realtime_end: '1902-01-01',
  vintage_dates: '1901-01-02',
  report_date: '1901-01-02',
  fields: 'period',
};

/** A request with one place to inject into. */
interface Position {
  route: RouteDefinition;
  /** 'slug', a parameter name, or '?name' for the payload as an unknown parameter's name. */
  place: string;
}

function listPositions(): Position[] {
  const positions: Position[] = [];
  for (const route of ROUTES) {
    if (route.path.includes(':slug')) positions.push({ route, place: 'slug' });
    for (const name of route.query) positions.push({ route, place: name });
    positions.push({ route, place: '?name' });
  }
  return positions;
}

/** The request target with `value` in the position; other required parameters get benign values. */
function targetFor({ route, place }: Position, value: string, validSlug: string): string {
  const slug = place === 'slug' ? value : route.id === 'cot-market' ? validSlug : BENIGN.slug!;
  const path = route.path.replace(':slug', percentEncode(slug));
  const query: string[] = [];
  if (route.query.includes('series') && place !== 'series') query.push('series=ecb.USD');
  // The aligned observations need their calendar: the other positions get a valid one.
  if (route.id === 'observations-aligned' && place !== 'frequency') query.push('frequency=m');
  if (place === '?name') query.push(`${percentEncode(value)}=1`);
  else if (place !== 'slug') query.push(`${place}=${percentEncode(value)}`);
  return query.length ? `${path}?${query.join('&')}` : path;
}

/** The body with what differs between two identical requests (request id, render times) blanked. */
function normalise(body: string): string {
  return (
    body
      .replace(/"request_id":"[^"]*"/g, '"request_id":""')
      .replace(/"(generated_at|checked_at)":"[^"]*"/g, '"$1":""')
      // The series search echoes the words it searched for (meta.search_text).
      .replace(/"search_text":"(?:[^"\\]|\\.)*"/g, '"search_text":""')
  );
}

describe('injection through every parameter and slug', () => {
  let sample: ServedSample;
  let server: TestServer;
  let keyed: string;
  const bodies: string[] = [];

  beforeAll(async () => {
    writeFileSync(CANARY, `token,value\n${TOKEN},1\n`);
    sample = await createServedSample();
    // The change feed's since: the fixture's own snapshot (since = current answers no changes).
    BENIGN.since = sample.snapshotId;
    // The event log: from the start of that snapshot; a type none of its events has.
    BENIGN.after = `${sample.snapshotId}:0`;
    BENIGN.type = 'release.delayed';
    keyed = (
      await issueTestKey(sample.env, {
        scopes: 'cot:history,macro:history,observations:read',
        rateLimit: 100_000,
      })
    ).plaintext;
    server = await startTestServer({
      dataDir: sample.dataDir,
      distDir: sample.distDir,
      anonymousLimit: 100_000,
    });
  });

  afterAll(async () => {
    await server?.close();
    sample?.remove();
    canaryDir.remove();
  });

  async function get(target: string, authorization: string | null) {
    const response = await fetch(`${server.url}${target}`, {
      headers: authorization ? { Authorization: authorization } : {},
    });
    const exchange = {
      method: 'GET',
      target,
      status: response.status,
      headers: headerRecord(response.headers),
      body: await response.text(),
    };
    bodies.push(exchange.body);
    return exchange;
  }

  it('has a well-formed value of every parameter the routes take', () => {
    const names = new Set(ROUTES.flatMap((route) => route.query as readonly string[]));
    expect([...names].filter((name) => BENIGN[name] === undefined)).toEqual([]);
  });

  it('answers each payload like an unknown value, or with a 400/404 envelope', async () => {
    const validSlug = sample.publicRequests
      .find((request) => request.path.startsWith('/api/v1/markets/cot/'))!
      .path.split('/')
      .at(-1)!;
    const outcomes: Record<string, number> = { baseline: 0, refused: 0 };
    for (const authorization of [null, `Bearer ${keyed}`]) {
      for (const position of listPositions()) {
        const benign = position.place === '?name' ? 'zz_unknown' : BENIGN[position.place]!;
        const baseline = await get(targetFor(position, benign, validSlug), authorization);
        expect(findContractViolations(baseline)).toEqual([]);
        for (const payload of PAYLOADS) {
          if (payload === '*' && WILDCARD_PLACES.has(`${position.route.id} ${position.place}`)) continue;
          const target = targetFor(position, payload, validSlug);
          const answer = await get(target, authorization);
          const where = `${authorization ? 'keyed' : 'anonymous'} ${position.route.id} ${position.place} ${JSON.stringify(payload)}`;
          expect(findContractViolations(answer), where).toEqual([]);
          if (answer.status === 400 || answer.status === 404) {
            outcomes.refused! += 1;
            continue;
          }
          expect(answer.status, where).toBe(baseline.status);
          if (FREE_TEXT_PLACES.has(`${position.route.id} ${position.place}`)) continue;
          expect(normalise(answer.body), where).toBe(normalise(baseline.body));
          outcomes.baseline! += 1;
        }
      }
    }
    // Both outcomes occur: payloads that fail the format and payloads that pass it as a mere unknown.
    expect(outcomes.refused).toBeGreaterThan(0);
    expect(outcomes.baseline).toBeGreaterThan(0);
    console.info(`injection: ${bodies.length} requests, ${JSON.stringify(outcomes)}`);
  });

  it('answers each payload as a bearer token with the same 401 as an unknown key', async () => {
    const target = '/api/v1/observations?series=ecb.USD';
    const unknown = await get(target, `Bearer mmds_${'a'.repeat(12)}_${'A'.repeat(38)}`);
    expect(unknown.status).toBe(401);
    for (const payload of PAYLOADS.filter((p) => /^[\x20-\x7e]+$/.test(p))) {
      const answer = await get(target, `Bearer ${payload}`);
      expect(answer.status, payload).toBe(401);
      expect(normalise(answer.body), payload).toBe(normalise(unknown.body));
    }
  });

  it('never returns the canary, never writes the files the payloads name, and keeps serving', async () => {
    expect(bodies.length).toBeGreaterThan(1_000);
    for (const body of bodies) expect(body).not.toContain(TOKEN);
    expect(JSON.stringify(server.logs)).not.toContain(TOKEN);
    for (const file of WRITTEN) expect(existsSync(file), file).toBe(false);
    expect(server.logs.filter((entry) => entry.event === 'internal_error')).toEqual([]);
    // The views are still there: a dropped view would turn this into an error.
    const observations = await get('/api/v1/observations?series=ecb.USD&limit=1', `Bearer ${keyed}`);
    expect(observations.status).toBe(200);
    expect(JSON.parse(observations.body).data).toHaveLength(1);
  });

  it('opens snapshots with file access off and the configuration locked', async () => {
    const layout = resolveLayout(sample.dataDir);
    const db = await openSnapshotDb(layout, sample.snapshotId, { poolSize: 1 });
    try {
      expect(await db.readSecuritySettings()).toEqual({
        enable_external_access: false,
        lock_configuration: true,
      });
      const canary = quotedString(CANARY);
      const batch = listBatches(layout)[0]!;
      const batchFile = join(layout.batchesDir, batch.id, Object.values(batch.tables)[0]!.file);
      for (const sql of [
        `SELECT * FROM read_csv(${canary})`,
        `SELECT * FROM read_text(${canary})`,
        `SELECT * FROM read_blob(${canary})`,
        `SELECT * FROM read_parquet(${quotedString(batchFile)})`,
        `COPY (SELECT 1) TO ${quotedString(WRITTEN[0]!)}`,
        `ATTACH ${quotedString(WRITTEN[2]!)} AS x`,
        'INSTALL httpfs',
        "SELECT * FROM glob('/etc/*')",
      ]) {
        await expect(db.query(sql), sql).rejects.toThrow(/^Permission Error/);
      }
      for (const sql of [
        'SET enable_external_access = true',
        'SET lock_configuration = false',
        "SET allowed_paths = ['/']",
      ]) {
        await expect(db.query(sql), sql).rejects.toThrow(/the configuration has been locked/);
      }
      expect(readdirSync(canaryDir.dir)).toEqual(['canary.csv']);
    } finally {
      await db.close();
    }
  });
});
