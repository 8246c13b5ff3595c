import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import fc from 'fast-check';
import { expect } from 'vitest';
import { openDuckDb } from '../../../src/db/duckdb.ts';
import type { ObservationInput, SeriesEntry, SourceEntry } from '../../../src/model/records.ts';
import { appendBatch } from '../../../src/store/append-batch.ts';
import { resolveLayout, type StoreLayout } from '../../../src/store/layout.ts';
import { publishSnapshot } from '../../../src/store/publish.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';
import { issueTestKey } from './served-sample.ts';

/**
 * The as_of reference model of test/property/as-of.test.ts, scaled to many independent cases in
 * one snapshot so that they can all be asked over HTTP of one server: case i owns the series
 * `t.c<i>a`, `t.c<i>b` and `t.c<i>c` (c is catalogued but often has no observations).
 */

const BASE = Date.UTC(2025, 0, 1);
const HOUR = 3_600_000;
/** The clock of the ingests: after every knowledge time of the model, before the real now. */
export const MODEL_NOW = new Date(BASE + 1000 * HOUR);
const PERIODS = ['2024-11', '2024-12', '2025-01'] as const;
const LETTERS = ['a', 'b', 'c'] as const;

export const MODEL_SOURCE: SourceEntry = {
  id: 't',
  name: 'Test source',
  publisher: 'Test',
  url: 'https://example.org/',
  licence: 'Public domain',
  licence_url: null,
  rights: 'public_domain',
  attribution: 'Source: test',
  cadence: 'monthly',
  stale_after_days: 45,
  sample: false,
};

/** One revision chain: values in revision order, each with its knowledge time. */
export interface Chain {
  series_key: string;
  period: string;
  revisions: Array<{ value: number; observed_at: string }>;
  /** Revisions from this index on go in the second ingest batch. */
  split: number;
}

/** How an as_of instant is picked: on, just before or just after a knowledge time, before all, or anywhere. */
export type InstantPick =
  | { kind: 'exact' | 'just-before' | 'just-after'; index: number }
  | { kind: 'before-all' }
  | { kind: 'anywhere'; offset: number };

/** One independent case: its chains, the instants to ask about and the page size to read with. */
export interface AsOfCase {
  index: number;
  seriesKeys: string[];
  chains: Chain[];
  picks: InstantPick[];
  pageSize: number;
}

const iso = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;

/**
 * 1 to 4 revisions per chain with knowledge times from a handful of hours (ties are common),
 * never decreasing along the chain; each value differs from the one before it.
 */
const chainShape = fc.record({
  hours: fc.array(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 4 }),
  steps: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 4, maxLength: 4 }),
  start: fc.integer({ min: 0, max: 4 }),
  split: fc.integer({ min: 1, max: 4 }),
});

const caseShape = fc.record({
  slots: fc.subarray(
    LETTERS.flatMap((letter) => PERIODS.map((period) => [letter, period] as const)),
    { minLength: 0, maxLength: 5 },
  ),
  shapes: fc.array(chainShape, { minLength: 5, maxLength: 5 }),
  picks: fc.array(
    fc.oneof(
      fc.record({
        kind: fc.constantFrom('exact' as const, 'just-before' as const, 'just-after' as const),
        index: fc.nat(),
      }),
      fc.constant({ kind: 'before-all' as const }),
      fc.record({
        kind: fc.constant('anywhere' as const),
        offset: fc.integer({ min: -HOUR, max: 8 * HOUR }),
      }),
    ),
    { minLength: 1, maxLength: 3 },
  ),
  pageSize: fc.oneof(
    { arbitrary: fc.constant(10_000), weight: 2 },
    { arbitrary: fc.integer({ min: 1, max: 4 }), weight: 1 },
  ),
});

/** Draws `count` independent cases from a seed (the same seed draws the same cases). */
export function sampleAsOfCases(count: number, seed: number): AsOfCase[] {
  return fc.sample(caseShape, { numRuns: count, seed }).map((shape, index) => {
    const seriesKeys = LETTERS.map((letter) => `t.c${index}${letter}`);
    const chains = shape.slots.map(([letter, period], i): Chain => {
      const { hours, steps, start, split } = shape.shapes[i]!;
      let value = start;
      const revisions = [...hours]
        .sort((a, b) => a - b)
        .map((hour, n) => {
          if (n > 0) value = (value + steps[n]!) % 5;
          return { value, observed_at: iso(BASE + hour * HOUR) };
        });
      return { series_key: `t.c${index}${letter}`, period, revisions, split };
    });
    return { index, seriesKeys, chains, picks: shape.picks, pageSize: shape.pageSize };
  });
}

function toObservation(chain: Chain, i: number): ObservationInput {
  const revision = chain.revisions[i]!;
  return {
    series_key: chain.series_key,
    period: chain.period,
    value: revision.value,
    observed_at: revision.observed_at,
    source_ref: `log:${chain.series_key}:${chain.period}:${i + 1}`,
    verification_status: 'verified',
    confidence: 1,
    data_class: 'official',
  };
}

/** Appends every case to the store: the catalogue and first revisions in one batch, later revisions in a second. */
export async function writeAsOfCases(
  layout: StoreLayout,
  connection: DuckDBConnection,
  cases: readonly AsOfCase[],
): Promise<void> {
  const meta = (n: number) => ({
    source: 't',
    files: [],
    options: {},
    collectorVersion: 'mmds/test',
    now: new Date(MODEL_NOW.getTime() + n * 1000),
  });
  const series: SeriesEntry[] = cases.flatMap((c) =>
    c.seriesKeys.map((key) => ({
      key,
      slug: key.replace('.', '-'),
      name: key,
      source: 't',
      frequency: 'monthly',
      unit: 'index',
      country: null,
      region: null,
      currency: null,
      sector: null,
      seasonal_adjustment: null,
      macro: false,
      description: null,
    })),
  );
  const chains = cases.flatMap((c) => c.chains);
  const first = chains.flatMap((c) => c.revisions.slice(0, c.split).map((_, i) => toObservation(c, i)));
  const second = chains.flatMap((c) =>
    c.revisions.slice(c.split).map((_, i) => toObservation(c, c.split + i)),
  );
  await appendBatch(
    layout,
    connection,
    { sources: [MODEL_SOURCE], series, observations: first, rows_read: 0, rows_skipped: 0 },
    meta(0),
  );
  if (second.length > 0)
    await appendBatch(layout, connection, { observations: second, rows_read: 0, rows_skipped: 0 }, meta(1));
}

/** A row as the model and the API both describe it (the fields as_of decides). */
interface ModelRow {
  series_key: string;
  period: string;
  value: number;
  observed_at: string;
  revision_number: number;
  in_force: boolean;
}

/** The reference: the revisions known at as_of (all without it), the highest per period in force. */
export function expectedRows(chains: readonly Chain[], seriesKey: string, asOf: string | null): ModelRow[] {
  return chains
    .filter((chain) => chain.series_key === seriesKey)
    .sort((a, b) => (a.period < b.period ? -1 : 1))
    .flatMap((chain) => {
      const known = chain.revisions
        .map((revision, i) => ({ ...revision, revision_number: i + 1 }))
        .filter((revision) => asOf === null || revision.observed_at <= asOf);
      return known.map((revision) => ({
        series_key: seriesKey,
        period: chain.period,
        ...revision,
        in_force: revision.revision_number === known.length,
      }));
    });
}

/** The as_of instant a pick stands for, given the case's knowledge times. */
export function resolveInstant(pick: InstantPick, boundaries: readonly number[]): string {
  if (pick.kind === 'before-all') return iso(BASE - 1000);
  if (pick.kind === 'anywhere' || boundaries.length === 0)
    return iso(BASE + (pick.kind === 'anywhere' ? pick.offset : 0));
  const at = boundaries[pick.index % boundaries.length]!;
  return iso(pick.kind === 'exact' ? at : pick.kind === 'just-before' ? at - 1000 : at + 1000);
}

type ApiRow = ModelRow & { id: string; supersedes_id: string | null };

/** Reads every page of a series over HTTP, following meta.next_cursor; returns the rows and requests made. */
async function readAllOverHttp(
  url: string,
  key: string,
  seriesKey: string,
  asOf: string | null,
  limit: number,
): Promise<{ rows: ApiRow[]; requests: number }> {
  const rows: ApiRow[] = [];
  let cursor: string | null = null;
  let requests = 0;
  do {
    const search = new URLSearchParams({ series: seriesKey, limit: String(limit) });
    if (asOf !== null) search.set('as_of', asOf);
    if (cursor !== null) search.set('cursor', cursor);
    const response = await fetch(`${url}/api/v1/observations?${search}`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    requests += 1;
    const body = (await response.json()) as {
      data: ApiRow[];
      meta: { next_cursor: string | null; as_of: string | null };
    };
    expect(response.status, `${seriesKey} as of ${asOf}: ${JSON.stringify(body)}`).toBe(200);
    expect(body.meta.as_of).toBe(asOf);
    rows.push(...body.data);
    cursor = body.meta.next_cursor;
  } while (cursor !== null);
  return { rows, requests };
}

const project = (rows: readonly ModelRow[]): ModelRow[] =>
  rows.map(({ series_key, period, value, observed_at, revision_number, in_force }) => ({
    series_key,
    period,
    value,
    observed_at,
    revision_number,
    in_force,
  }));

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

/** Checks every case over HTTP, `concurrency` at a time; returns the number of requests made. */
export async function checkAllAsOfCases(served: AsOfServer, concurrency: number): Promise<number> {
  let next = 0;
  let requests = 0;
  const worker = async () => {
    while (next < served.cases.length) {
      const testCase = served.cases[next++]!;
      // Not `requests += await …`: that reads `requests` before the await and loses the others' counts.
      const made = await checkAsOfCaseOverHttp(served.server.url, served.key, testCase, served.seed);
      requests += made;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return requests;
}
