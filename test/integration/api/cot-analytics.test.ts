import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiContext } from '../../../src/api/v1/context.ts';
import { getCotMarketPublic } from '../../../src/api/v1/cot.ts';
import { getCotHistory } from '../../../src/api/v1/cot-history.ts';
import { cotSeriesKey, presentCotReport } from '../../../src/api/v1/cot-report.ts';
import { parseRequest } from '../../../src/contract/parse-request.ts';
import { ROUTES } from '../../../src/contract/routes.ts';
import {
  type CotAnalyticsWindows,
  type CotReportRow,
  cotAnalyticsSql,
  type MarketRow,
  readMarkets,
  SERVED_WINDOWS,
} from '../../../src/query/cot.ts';
import { readCotHistory } from '../../../src/query/history.ts';
import { openSnapshotDb, type SnapshotDb } from '../../../src/query/snapshot-db.ts';
import { presentIndexChart, readMarketPage } from '../../../src/site/data/market-pages.ts';
import { resolveLayout } from '../../../src/store/layout.ts';
import { readCurrentId } from '../../../src/store/manifest.ts';
import {
  computeExpected,
  expectExact,
  LAYOUTS,
  type RawReport,
  readRawReports,
} from '../../helpers/cot-analytics-oracle.ts';
import { SAMPLE_DATA } from '../../helpers/paths.ts';
import { FIXTURE_NOW, runMmds } from '../../helpers/run-cli.ts';
import { startTestServer } from '../../helpers/server-fixture.ts';
import {
  createRealSnapshot,
  createSampleSnapshot,
  type SnapshotFixture,
} from '../../helpers/snapshot-fixture.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';

/**
 * The analytics of docs/api/cot-analytics.md, checked to the last digit against an independent
 * computation from the raw CFTC text files: nets summed from the published long and short
 * columns, windows in plain TypeScript, rounding in exact rational arithmetic. The real files hold 10–11 reports per market, fewer than the served windows
 * (26, 52, 156), so the window arithmetic is also checked with short windows through the same SQL.
 */

const SMALL: CotAnalyticsWindows = { index: [3, 5, 10], z: 5 };

describe('COT analytics on the real CFTC files (legacy, disaggregated, TFF)', () => {
  let fixture: SnapshotFixture;
  let db: SnapshotDb;
  let context: ApiContext;
  let markets: MarketRow[];
  const raw = new Map<string, RawReport[]>();
  const route = ROUTES.find((r) => r.id === 'cot-market')!;
  const call = (fn: typeof getCotHistory, c: ApiContext, slug: string, query: string) =>
    fn(c, parseRequest(route, slug, new URLSearchParams(query)));

  beforeAll(async () => {
    fixture = await createRealSnapshot();
    db = await fixture.open();
    context = { db, now: FIXTURE_NOW, keyed: true };
    markets = await readMarkets(db);
    for (const layout of LAYOUTS) for (const [key, list] of await readRawReports(layout)) raw.set(key, list);
  });
  afterAll(async () => {
    await db?.close();
    fixture?.remove();
  });

  it('windows over 3, 5 and 10 reports and a 5-report z-score equal the independent computation, every series', async () => {
    const rows = await db.query<{
      series_key: string;
      period: string;
      analytics: Array<Record<string, unknown>>;
    }>(
      `SELECT series_key, period, analytics FROM (${cotAnalyticsSql('cot_reports', "series_key LIKE 'cftc.%'", SMALL)})`,
    );
    const served = new Map(rows.map((r) => [`${r.series_key} ${r.period}`, r]));
    let compared = 0;
    let indexed = 0;
    for (const [key, reports] of raw) {
      const expected = computeExpected(reports, SMALL);
      for (const report of reports) {
        const row = served.get(`${key} ${report.period}`);
        expect(row, `${key} ${report.period}`).toBeDefined();
        for (const [category, values] of Object.entries(expected.get(report.period)!)) {
          const a = row!.analytics.find((x) => x.category === category);
          expect(a, `${key} ${report.period} ${category}`).toBeDefined();
          for (const [field, value] of Object.entries(values)) {
            if (field === 'net') continue;
            expectExact(a![field], value, field, `${key} ${report.period} ${category}`);
            compared++;
            if (field === 'cot_index_10' && value !== null) indexed++;
          }
        }
      }
    }
    // Every market of the three files, and many full 10-report windows among them.
    expect(raw.size).toBe(351 + 220 + 90);
    expect(compared).toBeGreaterThan(30_000);
    expect(indexed).toBeGreaterThan(1000);
  });

  it('serves net, pct_oi_net and the 26/52/156-report windows (null: the files hold fewer reports) per category', async () => {
    for (const layout of LAYOUTS) {
      for (const market of markets.filter((m) => m.report_types.includes(layout.type))) {
        const key = cotSeriesKey(market.code, layout.type);
        const reports = raw.get(key);
        if (!reports) continue;
        expect(reports.length).toBeLessThan(26);
        const payload = await call(getCotHistory, context, market.slug, `report_type=${layout.type}`);
        const data = payload.data as Array<{
          report_date: string;
          categories: Record<string, Record<string, unknown>>;
        }>;
        const expected = computeExpected(reports, SERVED_WINDOWS);
        expect(data.map((r) => r.report_date)).toEqual(reports.map((r) => r.period));
        for (const report of data) {
          for (const [category, values] of Object.entries(expected.get(report.report_date)!)) {
            const served = report.categories[category]!;
            for (const [field, value] of Object.entries(values)) {
              expectExact(served[field], value, field, `${key} ${report.report_date} ${category}`);
            }
          }
        }
      }
    }
  });

  it('computes a page’s windows over the whole history: a later page or a from filter keeps the full window', async () => {
    const market = markets.find((m) => m.code === '088691')!;
    const key = cotSeriesKey(market.code, 'legacy');
    const expected = computeExpected(raw.get(key)!, SMALL);
    const dates = raw.get(key)!.map((r) => r.period);
    const base = { asOf: null, after: null, to: null };
    const filtered = await readCotHistory(db, key, { ...base, from: dates[5]!, limit: 2 }, SMALL);
    expect(filtered.rows.map((r) => r.period)).toEqual(dates.slice(5, 7));
    const paged = await readCotHistory(
      db,
      key,
      { ...base, from: null, after: { period: dates[4]!, revision_number: 1 }, limit: 2 } as never,
      SMALL,
    );
    for (const page of [filtered, paged]) {
      const first = page.rows[0]!;
      const nc = first.analytics!.find((a) => a.category === 'noncommercial') as unknown as Record<
        string,
        unknown
      >;
      expect(nc.cot_index_5).not.toBeNull();
      for (const field of ['cot_index_3', 'cot_index_5', 'z_score_5'])
        expectExact(nc[field], expected.get(first.period)!.noncommercial![field]!, field, first.period);
    }
  });

  it('the public 12 reports carry the analytics of the same reports in the keyed history', async () => {
    const anonymous = { ...context, keyed: false };
    for (const [code, type] of [
      ['088691', 'legacy'],
      ['067651', 'disaggregated'],
      ['13874A', 'tff'],
    ] as const) {
      const market = markets.find((m) => m.code === code && m.report_types.includes(type));
      if (!market) throw new Error(`no ${type} market ${code}`);
      const pub = (await call(getCotMarketPublic, anonymous, market.slug, `report_type=${type}`))
        .data as Array<Record<string, unknown>>;
      const keyed = (await call(getCotHistory, context, market.slug, `report_type=${type}`)).data as Array<
        Record<string, unknown>
      >;
      expect(pub.length).toBeGreaterThan(0);
      // The keyed history adds supersedes_id and the columns stored beside the report; the rest is equal.
      expect(pub).toEqual(
        keyed
          .slice(-12)
          .map(({ supersedes_id: _, concentration_net: __, crop_years: ___, ...report }) => report),
      );
      expect(keyed.every((report) => report.concentration_net !== undefined)).toBe(true);
    }
  });

  it('the market page charts the 52-report COT Index only where a window is full, wide and narrow', async () => {
    const page = await readMarketPage({ db, now: FIXTURE_NOW }, 'gold');
    const legacy = page.sections.find((s) => s.type === 'legacy')!;
    // The real files hold 10 reports: no full 52-report window, so no chart (the page says why).
    expect(legacy.reports).toBe(10);
    expect(legacy.indexChart).toBeNull();
    // Drawn from real values: the 5-report index of gold's reports stands in for cot_index_52.
    const market = markets.find((m) => m.code === '088691')!;
    const key = cotSeriesKey(market.code, 'legacy');
    const rows = await readCotHistory(
      db,
      key,
      { asOf: null, from: null, to: null, after: null, limit: 100 },
      {
        index: [5],
        z: 5,
      },
    );
    const reports = rows.rows.map((row) => {
      const report = presentCotReport(row);
      for (const a of row.analytics ?? []) {
        const c = report.categories[a.category];
        if (c) c.cot_index_52 = (a as unknown as Record<string, number | null>).cot_index_5 ?? null;
      }
      return report;
    });
    const svg = presentIndexChart(market, 'Legacy', 'legacy', Object.keys(reports[0]!.categories), reports)!;
    expect(svg).toContain('52-week COT Index by trader category (Legacy report)');
    expect(svg).toContain('chart-wide');
    expect(svg).toContain('chart-narrow');
    expect(svg).toContain('Non-commercial');
    expect(svg).not.toContain('Total reportable');
  });
});

describe('COT analytics are as_of-correct: a report corrected later', () => {
  const LEGACY = join(SAMPLE_DATA, 'cftc/legacy_futures_only_2025_selected_markets.txt');
  const temp = createTempDir('mmds-cot-analytics-');
  const layout = LAYOUTS[0]!;
  const KEY = 'cftc.088691.legacy';
  const CORRECTED_AT = '2025-03-19T09:00:00Z';
  let fixture: SnapshotFixture;
  let db: SnapshotDb;
  let corrected: string;

  beforeAll(async () => {
    fixture = await createSampleSnapshot();
    // The CFTC corrects gold's noncommercial long of 2025-02-11 (a copy of the real file).
    const lines = readFileSync(LEGACY, 'latin1').split('\n');
    const header = lines[0]!.split(',').map((h) => h.replaceAll('"', '').trim());
    const column = header.indexOf('Noncommercial Positions-Long (All)');
    const index = lines.findIndex((line) => line.includes(',2025-02-11,088691,'));
    const fields = lines[index]!.split(',');
    // Market names hold commas inside quotes: count the column from the code field.
    const codeAt = fields.indexOf('088691');
    const at = codeAt + (column - header.indexOf('CFTC Contract Market Code'));
    fields[at] = ` ${Number(fields[at]) + 50_000}`;
    lines[index] = fields.join(',');
    corrected = join(temp.dir, 'legacy_corrected.txt');
    writeFileSync(corrected, lines.join('\n'), 'latin1');
    const ingest = await runMmds(['ingest', 'cftc', corrected, '--collected-at', CORRECTED_AT], fixture.env);
    expect(ingest.code, ingest.stderr).toBe(0);
    expect((await runMmds(['publish'], fixture.env)).code).toBe(0);
    const layout = resolveLayout(fixture.dataDir);
    const current = readCurrentId(layout)!;
    expect(current).not.toBe(fixture.snapshotId);
    db = await openSnapshotDb(layout, current);
  });
  afterAll(async () => {
    await db?.close();
    fixture?.remove();
    temp.remove();
  });

  it('before the correction every window uses the first revision; after it, the corrected one', async () => {
    const original = computeExpected((await readRawReports(layout, LEGACY)).get(KEY)!, SMALL);
    const revised = computeExpected((await readRawReports(layout, corrected)).get(KEY)!, SMALL);
    expect(revised.get('2025-02-11')!.noncommercial!.net).toBe(
      original.get('2025-02-11')!.noncommercial!.net! + 50_000,
    );
    const read = async (asOf: string | null) =>
      (await readCotHistory(db, KEY, { asOf, from: null, to: null, after: null, limit: 1000 }, SMALL)).rows;
    const check = (rows: CotReportRow[], expected: ReturnType<typeof computeExpected>) => {
      for (const row of rows) {
        const a = row.analytics!.find((x) => x.category === 'noncommercial') as unknown as Record<
          string,
          unknown
        >;
        for (const field of ['pct_oi_net', 'cot_index_3', 'cot_index_5', 'z_score_5'])
          expectExact(a[field], expected.get(row.period)!.noncommercial![field]!, field, row.period);
      }
    };
    const before = await read('2025-03-18T23:59:59Z');
    expect(before.find((r) => r.period === '2025-02-11')!.revision_number).toBe(1);
    check(before, original);
    const after = await read(null);
    expect(after.find((r) => r.period === '2025-02-11')!.revision_number).toBe(2);
    check(after, revised);
    // The correction moves the windows of the weeks after it: the 2025-03-11 z-score differs.
    const z = (rows: CotReportRow[]) =>
      (
        rows
          .find((r) => r.period === '2025-03-11')!
          .analytics!.find((x) => x.category === 'noncommercial') as never as {
          z_score_5: number;
        }
      ).z_score_5;
    expect(z(before)).not.toBe(z(after));
  });

  it('over HTTP, the keyed CSV carries the analytics columns, and as_of before the correction the old value', async () => {
    const dist = createTempDir('mmds-cot-analytics-dist-');
    const server = await startTestServer({ dataDir: fixture.dataDir, distDir: dist.dir });
    try {
      const issued = await runMmds(
        ['--json', 'keys', 'issue', '--org', 'COT analytics', '--scopes', 'cot:history'],
        fixture.env,
        () => new Date(),
      );
      expect(issued.code, issued.stderr).toBe(0);
      const key = (JSON.parse(issued.stdout) as { key: string }).key;
      const original = computeExpected((await readRawReports(layout, LEGACY)).get(KEY)!, SERVED_WINDOWS);
      const revised = computeExpected((await readRawReports(layout, corrected)).get(KEY)!, SERVED_WINDOWS);
      const pct = (e: typeof original) => e.get('2025-02-11')!.noncommercial!.pct_oi_net;
      expect(pct(revised)).not.toBe(pct(original));
      for (const [asOf, expected] of [
        ['&as_of=2025-03-18T23:59:59Z', original],
        ['', revised],
      ] as const) {
        const response = await fetch(`${server.url}/api/v1/markets/cot/gold.csv?report_type=legacy${asOf}`, {
          headers: { Authorization: `Bearer ${key}` },
        });
        expect(response.status).toBe(200);
        const lines = (await response.text()).trim().split('\r\n');
        const header = lines[0]!.split(',');
        for (const field of ['pct_oi_net', 'cot_index_26', 'cot_index_52', 'cot_index_156', 'z_score_52'])
          expect(header).toContain(`categories.noncommercial.${field}`);
        // The market name is quoted and holds no comma in gold's case: plain splitting is enough here.
        const row = lines.find((line) => line.includes('2025-02-11'))!.split(',');
        const at = (name: string) => row[header.indexOf(name)];
        expect(Number(at('categories.noncommercial.pct_oi_net'))).toBe(
          expected.get('2025-02-11')!.noncommercial!.pct_oi_net,
        );
        expect(at('categories.noncommercial.cot_index_52')).toBe('');
      }
    } finally {
      await server.close();
      dist.remove();
    }
  });
});
