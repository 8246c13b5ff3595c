import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { expect } from 'vitest';
import { openDuckDb } from '../../../src/db/duckdb.ts';
import { writeSnapshotEvents } from '../../../src/events/snapshot-events.ts';
import { resolveLayout, type StoreLayout } from '../../../src/store/layout.ts';
import { publishSnapshot } from '../../../src/store/publish.ts';
import {
  type ApiRow,
  appendChains,
  type Chain,
  chainOf,
  chainShapeArbitrary,
  expectedRows,
  type InstantPick,
  instantPickArbitrary,
  MODEL_NOW,
  type ModelRow,
  modelSeries,
  PERIODS,
  pageSizeArbitrary,
  project,
  resolveInstant,
} from '../../helpers/as-of-reference.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';
import { issueTestKey } from './served-sample.ts';

/**
 * The as_of reference model of test/helpers/as-of-reference.ts (shared with
 * test/property/as-of.test.ts), scaled to many independent cases in one snapshot so that they can all be asked over HTTP of one server: case i owns the series
 * `t.c<i>a`, `t.c<i>b` and `t.c<i>c` (c is catalogued but often has no observations).
 */

const LETTERS = ['a', 'b', 'c'] as const;

/** One independent case: its chains, the instants to ask about and the page size to read with. */
export interface AsOfCase {
  index: number;
  seriesKeys: string[];
  chains: Chain[];
  picks: InstantPick[];
  pageSize: number;
}

const caseShape = fc.record({
  slots: fc.subarray(
    LETTERS.flatMap((letter) => PERIODS.map((period) => [letter, period] as const)),
    { minLength: 0, maxLength: 5 },
  ),
  shapes: fc.array(chainShapeArbitrary, { minLength: 5, maxLength: 5 }),
  picks: fc.array(instantPickArbitrary, { minLength: 1, maxLength: 3 }),
  pageSize: pageSizeArbitrary,
});

/** Draws `count` independent cases from a seed (the same seed draws the same cases). */
export function sampleAsOfCases(count: number, seed: number): AsOfCase[] {
  return fc.sample(caseShape, { numRuns: count, seed }).map((shape, index) => {
    const seriesKeys = LETTERS.map((letter) => `t.c${index}${letter}`);
    const chains = shape.slots.map(([letter, period], i) =>
      chainOf(`t.c${index}${letter}`, period, shape.shapes[i]!),
    );
    return { index, seriesKeys, chains, picks: shape.picks, pageSize: shape.pageSize };
  });
}

/** Appends every case to the store: the catalogue and first revisions in one batch, later revisions in a second. */
export async function writeAsOfCases(
  layout: StoreLayout,
  connection: DuckDBConnection,
  cases: readonly AsOfCase[],
): Promise<void> {
  const series = cases.flatMap((c) => c.seriesKeys.map(modelSeries));
  await appendChains(
    layout,
    connection,
    series,
    cases.flatMap((c) => c.chains),
  );
}

/** A page of GET /api/v1/observations as the REST API and the MCP tool both return it. */
type ObservationsPage = {
  data: ApiRow[];
  meta: { next_cursor: string | null; as_of: string | null; generated_at?: string };
};

/** Reads every page of one request, following meta.next_cursor; returns the rows and the pages read. */
async function readAllPages(
  readPage: (cursor: string | null) => Promise<ObservationsPage>,
): Promise<{ rows: ApiRow[]; pages: number }> {
  const rows: ApiRow[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page = await readPage(cursor);
    pages += 1;
    rows.push(...page.data);
    cursor = page.meta.next_cursor;
  } while (cursor !== null);
  return { rows, pages };
}

/** Reads every page of a series over HTTP; returns the rows and requests made. */
async function readAllOverHttp(
  url: string,
  key: string,
  seriesKey: string,
  asOf: string | null,
  limit: number,
): Promise<{ rows: ApiRow[]; requests: number }> {
  const { rows, pages } = await readAllPages(async (cursor) => {
    const search = new URLSearchParams({ series: seriesKey, limit: String(limit) });
    if (asOf !== null) search.set('as_of', asOf);
    if (cursor !== null) search.set('cursor', cursor);
    const response = await fetch(`${url}/api/v1/observations?${search}`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    const body = (await response.json()) as ObservationsPage;
    expect(response.status, `${seriesKey} as of ${asOf}: ${JSON.stringify(body)}`).toBe(200);
    expect(body.meta.as_of).toBe(asOf);
    return body;
  });
  return { rows, requests: pages };
}

/**
 * Asks the server about every series of a case, without as_of and at each picked instant, and
 * compares with the model; returns the number of HTTP requests made.
 */
export async function checkAsOfCaseOverHttp(
  url: string,
  key: string,
  testCase: AsOfCase,
  seed: number,
): Promise<number> {
  const boundaries = testCase.chains.flatMap((c) => c.revisions.map((r) => Date.parse(r.observed_at)));
  let requests = 0;
  for (const seriesKey of testCase.seriesKeys) {
    const where = `seed ${seed}, case ${testCase.index}, ${seriesKey}`;
    const all = await readAllOverHttp(url, key, seriesKey, null, testCase.pageSize);
    requests += all.requests;
    for (const row of all.rows) {
      const previous = all.rows.find(
        (r) => r.period === row.period && r.revision_number === row.revision_number - 1,
      );
      expect(row.supersedes_id, where).toBe(previous?.id ?? null);
    }
    expect(project(all.rows), where).toEqual(expectedRows(testCase.chains, seriesKey, null));
    for (const pick of testCase.picks) {
      const asOf = resolveInstant(pick, boundaries);
      const known = await readAllOverHttp(url, key, seriesKey, asOf, testCase.pageSize);
      requests += known.requests;
      expect(project(known.rows), `${where} as of ${asOf}`).toEqual(
        expectedRows(testCase.chains, seriesKey, asOf),
      );
    }
  }
  return requests;
}

/** A page without its render time, which differs between two renders of one answer. */
function comparablePage(page: ObservationsPage): ObservationsPage {
  const { generated_at: _ignored, ...meta } = page.meta;
  return { data: page.data, meta };
}

/**
 * Reads every page of a series with the MCP tool get_observations (the same arguments as the
 * query), and checks each page against GET /api/v1/observations for the same request: equal data
 * and meta. Returns the rows and the tool calls made.
 */
async function readAllOverMcp(
  client: Client,
  url: string,
  key: string,
  seriesKey: string,
  asOf: string | null,
  limit: number,
): Promise<{ rows: ApiRow[]; calls: number }> {
  const { rows, pages } = await readAllPages(async (cursor) => {
    const args: Record<string, string> = { series: seriesKey, limit: String(limit) };
    if (asOf !== null) args.as_of = asOf;
    if (cursor !== null) args.cursor = cursor;
    const result = (await client.callTool({ name: 'get_observations', arguments: args })) as CallToolResult;
    const where = `get_observations ${JSON.stringify(args)}`;
    expect(result.isError, `${where}: ${JSON.stringify(result.content)}`).toBeFalsy();
    const page = result.structuredContent as ObservationsPage;
    const response = await fetch(`${url}/api/v1/observations?${new URLSearchParams(args)}`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    expect(response.status, where).toBe(200);
    expect(comparablePage(page), where).toEqual(comparablePage((await response.json()) as ObservationsPage));
    return page;
  });
  return { rows, calls: pages };
}

/**
 * Asks the MCP tool get_observations about every series of a case, without as_of and at each
 * picked instant: each page equals the REST answer to the same request, the rows equal the model
 * and none was known after as_of. Returns the number of tool calls made.
 */
export async function checkAsOfCaseOverMcp(
  client: Client,
  url: string,
  key: string,
  testCase: AsOfCase,
  seed: number,
): Promise<number> {
  const boundaries = testCase.chains.flatMap((c) => c.revisions.map((r) => Date.parse(r.observed_at)));
  const instants = [null, ...testCase.picks.map((pick) => resolveInstant(pick, boundaries))];
  let calls = 0;
  for (const seriesKey of testCase.seriesKeys) {
    calls += await checkSeriesHistoryOverMcp(client, url, key, testCase, seriesKey, seed);
    for (const asOf of instants) {
      const where = `seed ${seed}, case ${testCase.index}, ${seriesKey} as of ${asOf}`;
      const read = await readAllOverMcp(client, url, key, seriesKey, asOf, testCase.pageSize);
      calls += read.calls;
      expect(project(read.rows), where).toEqual(expectedRows(testCase.chains, seriesKey, asOf));
      if (asOf !== null)
        for (const row of read.rows)
          expect(row.observed_at <= asOf, `${where}: ${row.observed_at}`).toBe(true);
    }
  }
  return calls;
}

/** The fields of a values-in-force row (GET /api/v1/series/{slug}). */
const inForceFields = (rows: readonly ModelRow[]) =>
  rows.map(({ period, value, revision_number, observed_at }) => ({
    period,
    value,
    revision_number,
    observed_at,
  }));

/**
 * get_series_history (values in force, no as_of) against GET /api/v1/series/{slug} and the model:
 * the same body, or the same 404 for a series without observations. Returns the calls made (1).
 */
async function checkSeriesHistoryOverMcp(
  client: Client,
  url: string,
  key: string,
  testCase: AsOfCase,
  seriesKey: string,
  seed: number,
): Promise<number> {
  const slug = modelSeries(seriesKey).slug;
  const where = `seed ${seed}, case ${testCase.index}, get_series_history ${slug}`;
  const result = (await client.callTool({
    name: 'get_series_history',
    arguments: { slug },
  })) as CallToolResult;
  // With the key for its rate limit only: the route is public, the body the same.
  const response = await fetch(`${url}/api/v1/series/${slug}`, {
    headers: { Authorization: `Bearer ${key}` },
  });
  const inForce = expectedRows(testCase.chains, seriesKey, null).filter((row) => row.in_force);
  if (inForce.length === 0) {
    expect(response.status, where).toBe(404);
    expect(result.isError, where).toBe(true);
    expect(JSON.parse((result.content as { text: string }[])[0]!.text).status, where).toBe(404);
    return 1;
  }
  expect(response.status, where).toBe(200);
  expect(result.isError, `${where}: ${JSON.stringify(result.content)}`).toBeFalsy();
  const page = result.structuredContent as unknown as { data: ModelRow[]; meta: ObservationsPage['meta'] };
  expect(comparablePage(page as unknown as ObservationsPage), where).toEqual(
    comparablePage((await response.json()) as ObservationsPage),
  );
  expect(inForceFields(page.data), where).toEqual(inForceFields(inForce));
  return 1;
}

/** A server over one snapshot holding every case, and a key that may read observations. */
export interface AsOfServer {
  server: TestServer;
  key: string;
  cases: AsOfCase[];
  seed: number;
  close(): Promise<void>;
}

/** Draws the cases, writes and publishes them in a temporary data directory, and serves it. */
export async function startAsOfServer(count: number, seed: number): Promise<AsOfServer> {
  const temp = createTempDir('mmds-as-of-http-');
  const dataDir = join(temp.dir, 'data');
  const layout = resolveLayout(dataDir);
  const cases = sampleAsOfCases(count, seed);
  const duck = await openDuckDb({ threads: 2 });
  const connection = await duck.connect();
  try {
    await writeAsOfCases(layout, connection, cases);
    await publishSnapshot(layout, connection, {
      now: new Date(MODEL_NOW.getTime() + 2000),
      pipelineVersion: 'test',
      keep: 1,
      snapshotEvents: writeSnapshotEvents,
    });
  } finally {
    connection.closeSync();
    duck.closeSync();
  }
  const env = { MMDS_DATA_DIR: dataDir };
  const key = await issueTestKey(env, { scopes: 'observations:read', rateLimit: 100_000 });
  const server = await startTestServer({ dataDir, distDir: join(temp.dir, 'dist') });
  return {
    server,
    key: key.plaintext,
    cases,
    seed,
    async close() {
      await server.close();
      temp.remove();
    },
  };
}

/** Checks every case (over HTTP unless `check` says otherwise), `concurrency` at a time; returns the requests made. */
export async function checkAllAsOfCases(
  served: AsOfServer,
  concurrency: number,
  check: (testCase: AsOfCase) => Promise<number> = (testCase) =>
    checkAsOfCaseOverHttp(served.server.url, served.key, testCase, served.seed),
): Promise<number> {
  let next = 0;
  let requests = 0;
  const worker = async () => {
    while (next < served.cases.length) {
      const testCase = served.cases[next++]!;
      // Not `requests += await …`: that reads `requests` before the await and loses the others' counts.
      const made = await check(testCase);
      requests += made;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return requests;
}
