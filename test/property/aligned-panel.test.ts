import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDuckDb } from '../../src/db/duckdb.ts';
import { writeSnapshotEvents } from '../../src/events/snapshot-events.ts';
import type { SeriesEntry } from '../../src/model/records.ts';
import { resolveLayout } from '../../src/store/layout.ts';
import { publishSnapshot } from '../../src/store/publish.ts';
import { appendChains, type Chain, MODEL_NOW, modelSeries } from '../helpers/as-of-reference.ts';
import { startTestServer, type TestServer } from '../helpers/server-fixture.ts';
import { createTempDir } from '../helpers/temp-dir.ts';
import { issueTestKey } from '../reliability/helpers/served-sample.ts';

/**
 * Property: on random revision logs of a monthly, a daily and a quarterly series, every row of
 * the point-in-time panel (/api/v1/observations/aligned?as_of=row) over HTTP equals what one
 * request with as_of = that row's instant gives for the row: the instant being the end of the
 * row's last day in UTC (23:59:59Z), or the server's clock when that is still ahead. The panel's
 * rows are the calendar of the request without as_of. Knowledge times fall on and around row
 * ends (23:59:59Z on the day, 00:00:00Z the next) so that a revision published at the last second
 * of a Friday or a month counts in that row and one a second later does not. All cases live in
 * one snapshot (own series each) behind one real server on a random port; a failure names the seed
 * and the case: MMDS_PROPERTY_SEED replays it.
 */

const CASES = Math.min(Number(process.env.MMDS_PROPERTY_RUNS ?? 30), 200);
const SEED = Number(process.env.MMDS_PROPERTY_SEED ?? Date.now() % 2 ** 31);
/** The server's clock: rows ending after it (late January 2025 on) are as known at it. */
const SERVER_NOW = '2025-01-22T12:00:00Z';
/** No knowledge time after this (the ingest clock of appendChains is MODEL_NOW). */
const LAST_KNOWLEDGE = MODEL_NOW.getTime() - 3_600_000;
const DAY_MS = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const iso = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;

const MONTHS = ['2024-09', '2024-10', '2024-11', '2024-12', '2025-01'];
const QUARTERS = ['2024-Q3', '2024-Q4'];
/** 2024-11-25 to 2025-01-31: weeks and month ends on both sides of the server's clock. */
const DAYS = Array.from({ length: 68 }, (_, i) => dayOf(Date.UTC(2024, 10, 25) + i * DAY_MS));

/** The last day of a period (a day, a month or a quarter). */
function lastDay(period: string): string {
  if (/^\d{4}-\d{2}-\d{2}$/.test(period)) return period;
  const year = Number(period.slice(0, 4));
  const month = period.includes('Q') ? Number(period.slice(6)) * 3 : Number(period.slice(5, 7));
  return dayOf(Date.UTC(year, month, 0));
}

/** When a revision became known, relative to the end of a day: its last second, the next second, or an hour. */
const momentArbitrary = fc.oneof(
  fc.constant(0),
  fc.constant(1000),
  fc.integer({ min: -23, max: 23 }).map((h) => h * 3_600_000),
);
/** A chain: the first revision some days around the period's end, later ones days apart. */
const chainShape = (firstDays: { min: number; max: number }) =>
  fc.record({
    first: fc.integer(firstDays),
    gaps: fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 0, maxLength: 2 }),
    moments: fc.array(momentArbitrary, { minLength: 3, maxLength: 3 }),
    values: fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 3, maxLength: 3 }),
  });
type ChainShape = typeof chainShape extends (...args: never[]) => fc.Arbitrary<infer T> ? T : never;

function chainOf(series_key: string, period: string, shape: ChainShape): Chain | null {
  let day = Date.parse(`${lastDay(period)}T23:59:59Z`) + shape.first * DAY_MS;
  const revisions: Chain['revisions'] = [];
  let previous: number | null = null;
  for (const [i, gap] of [0, ...shape.gaps].entries()) {
    day += gap * DAY_MS;
    const at = day + shape.moments[i]!;
    // A repeated value is no revision: step to another.
    const value: number = shape.values[i] === previous ? (shape.values[i]! + 1) % 10 : shape.values[i]!;
    if (at > LAST_KNOWLEDGE || (revisions.length && at <= Date.parse(revisions.at(-1)!.observed_at))) break;
    revisions.push({ value, observed_at: iso(at) });
    previous = value;
  }
  return revisions.length
    ? { series_key, period, revisions, split: revisions.length, lateFirst: false }
    : null;
}

const slots = (periods: readonly string[], min: number, max: number, days: { min: number; max: number }) =>
  fc
    .subarray([...periods], { minLength: min, maxLength: max })
    .chain((chosen) =>
      fc.tuple(...chosen.map((period) => chainShape(days).map((shape) => [period, shape] as const))),
    );

const caseArbitrary = fc.record({
  monthly: slots(MONTHS, 1, 5, { min: -2, max: 40 }),
  daily: slots(DAYS, 0, 24, { min: -1, max: 9 }),
  quarterly: slots(QUARTERS, 0, 2, { min: -5, max: 60 }),
  requests: fc.array(
    fc.record({
      frequency: fc.constantFrom('w' as const, 'm' as const),
      fill: fc.constantFrom('ffill' as const, 'none' as const, null),
      from: fc.option(fc.constantFrom(...DAYS.filter((_, i) => i % 5 === 0)), { freq: 2 }),
      reversed: fc.boolean(),
    }),
    { minLength: 1, maxLength: 2 },
  ),
});

interface PanelCase {
  index: number;
  keys: { m: string; d: string; q: string };
  chains: Chain[];
  requests: Array<{
    frequency: 'w' | 'm';
    fill: 'ffill' | 'none' | null;
    from: string | null;
    reversed: boolean;
  }>;
}

function drawCases(): PanelCase[] {
  return fc.sample(caseArbitrary, { numRuns: CASES, seed: SEED }).map((drawn, index) => {
    const keys = { m: `t.p${index}m`, d: `t.p${index}d`, q: `t.p${index}q` };
    const chains = [
      ...drawn.monthly.map(([period, shape]) => chainOf(keys.m, period, shape)),
      ...drawn.daily.map(([period, shape]) => chainOf(keys.d, period, shape)),
      ...drawn.quarterly.map(([period, shape]) => chainOf(keys.q, period, shape)),
    ].filter((chain): chain is Chain => chain !== null);
    return { index, keys, chains, requests: drawn.requests };
  });
}

interface Row {
  period: string;
  as_of?: string;
  values: Array<number | null>;
  filled: boolean[];
}

/** The row before a row: the previous Friday, or the previous month. */
function previousRow(period: string, frequency: 'w' | 'm'): string {
  if (frequency === 'w') return dayOf(Date.parse(`${period}T00:00:00Z`) - 7 * DAY_MS);
  return dayOf(Date.UTC(Number(period.slice(0, 4)), Number(period.slice(5, 7)) - 2, 1)).slice(0, 7);
}
/** The first day of a row: the Saturday before its Friday, or the month's first day. */
const firstDay = (period: string, frequency: 'w' | 'm') =>
  frequency === 'w' ? dayOf(Date.parse(`${period}T00:00:00Z`) - 6 * DAY_MS) : `${period}-01`;

describe('the point-in-time panel over HTTP against one as_of request per row', () => {
  let server: TestServer;
  let key: string;
  let cases: PanelCase[];
  let remove: () => void;
  const stats = { rows: 0, values: 0, filled: 0, differFromLatest: 0, clamped: 0 };

  beforeAll(async () => {
    const temp = createTempDir('mmds-aligned-panel-');
    remove = temp.remove;
    const dataDir = join(temp.dir, 'data');
    const layout = resolveLayout(dataDir);
    cases = drawCases();
    const series: SeriesEntry[] = cases.flatMap((c) => [
      modelSeries(c.keys.m),
      { ...modelSeries(c.keys.d), frequency: 'daily' },
      { ...modelSeries(c.keys.q), frequency: 'quarterly' },
    ]);
    const duck = await openDuckDb({ threads: 2 });
    const connection = await duck.connect();
    try {
      await appendChains(
        layout,
        connection,
        series,
        cases.flatMap((c) => c.chains),
      );
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
    const issued = await issueTestKey(
      { MMDS_DATA_DIR: dataDir },
      { scopes: 'observations:read', rateLimit: 100_000, now: () => new Date('2025-01-01T00:00:00Z') },
    );
    key = issued.plaintext;
    server = await startTestServer({
      dataDir,
      distDir: join(temp.dir, 'dist'),
      now: () => new Date(SERVER_NOW),
    });
  });

  afterAll(async () => {
    await server?.close();
    remove?.();
  });

  const getRows = async (
    search: URLSearchParams,
    where: string,
  ): Promise<{ data: Row[]; meta: Record<string, unknown> }> => {
    const response = await fetch(`${server.url}/api/v1/observations/aligned?${search}`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    const text = await response.text();
    expect(response.status, `${where}: ${search} → ${text}`).toBe(200);
    return JSON.parse(text) as { data: Row[]; meta: Record<string, unknown> };
  };

  async function checkCase(testCase: PanelCase): Promise<void> {
    const { keys } = testCase;
    for (const request of testCase.requests) {
      const where = `seed ${SEED}, case ${testCase.index} over ${JSON.stringify(testCase.chains.map((c) => [c.series_key, c.period, c.revisions]))}`;
      const order = request.reversed ? [keys.q, keys.d, keys.m] : [keys.m, keys.d, keys.q];
      const base = new URLSearchParams({
        series: order.join(','),
        frequency: request.frequency,
        limit: '10000',
      });
      if (request.fill !== null) base.set('fill', request.fill);
      const ffill = request.fill !== 'none';
      const ranged = new URLSearchParams(base);
      if (request.from !== null) ranged.set('from', request.from);
      const panel = await getRows(new URLSearchParams([...ranged, ['as_of', 'row']]), where);
      const latest = await getRows(ranged, where);
      expect(panel.meta.as_of, where).toBe('row');
      expect(
        panel.data.map((row) => row.period),
        where,
      ).toEqual(latest.data.map((row) => row.period));
      for (const [n, row] of panel.data.entries()) {
        const end = `${request.frequency === 'w' ? row.period : dayOf(Date.UTC(Number(row.period.slice(0, 4)), Number(row.period.slice(5, 7)), 0))}T23:59:59Z`;
        const instant = end < SERVER_NOW ? end : SERVER_NOW;
        expect(row.as_of, `${where}: ${row.period}`).toBe(instant);
        // The rows R-1 and R as of the row's instant (R-1 holds the own values a gap is filled from).
        const previous = previousRow(row.period, request.frequency);
        const single = new URLSearchParams(base);
        single.set('as_of', instant);
        single.set('from', firstDay(previous, request.frequency));
        single.set('to', request.frequency === 'w' ? row.period : lastDay(row.period));
        const known = await getRows(single, where);
        const same = known.data.find((r) => r.period === row.period);
        const before = known.data.find((r) => r.period === previous);
        let expected: Row;
        if (same) expected = { ...same, as_of: instant };
        else {
          // Past the last period known then: the calendar runs on, a gap filled from R-1's own value.
          const values = order.map((_, i) =>
            ffill && before && !before.filled[i] ? (before.values[i] ?? null) : null,
          );
          expected = { period: row.period, as_of: instant, values, filled: values.map((v) => v !== null) };
        }
        expect(row, `${where}: ${single}`).toEqual({
          period: expected.period,
          as_of: expected.as_of,
          values: expected.values,
          filled: expected.filled,
        });
        stats.rows += 1;
        stats.values += row.values.filter((v) => v !== null).length;
        stats.filled += row.filled.filter(Boolean).length;
        if (JSON.stringify(row.values) !== JSON.stringify(latest.data[n]!.values))
          stats.differFromLatest += 1;
        if (instant === SERVER_NOW) stats.clamped += 1;
      }
    }
  }

  it(`equals a per-row as_of request on ${CASES} random revision logs (seed ${SEED})`, async () => {
    let next = 0;
    const worker = async () => {
      while (next < cases.length) await checkCase(cases[next++]!);
    };
    await Promise.all([worker(), worker(), worker()]);
    console.info(`aligned panel: ${JSON.stringify(stats)} (seed ${SEED})`);
    // Not vacuous: values, filled cells, rows that as_of=row changes, and rows past the clock.
    expect(stats.values).toBeGreaterThan(0);
    expect(stats.filled).toBeGreaterThan(0);
    expect(stats.differFromLatest).toBeGreaterThan(0);
    expect(stats.clamped).toBeGreaterThan(0);
    expect(server.logs.filter((entry) => entry.event === 'internal_error')).toEqual([]);
  }, 300_000);
});
