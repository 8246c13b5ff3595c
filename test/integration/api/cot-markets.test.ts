import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import type { PayloadFunction } from '../../../src/api/v1/context.ts';
import { getCotMarketPublic, getCotSummary } from '../../../src/api/v1/cot.ts';
import { listStaticRequests } from '../../../src/api/v1/static-requests.ts';
import { openDuckDb, readCsvFile } from '../../../src/db/duckdb.ts';
import { type MarketRow, readMarkets, readRecentReports } from '../../../src/query/cot.ts';
import { openSnapshotDb, type SnapshotDb } from '../../../src/query/snapshot-db.ts';
import { resolveLayout } from '../../../src/store/layout.ts';
import { readCurrentId } from '../../../src/store/manifest.ts';
import { REPO_ROOT, SHARED_DATA } from '../../helpers/paths.ts';
import { FIXTURE_NOW, runMmds } from '../../helpers/run-cli.ts';
import { createRealSnapshot, type SnapshotFixture } from '../../helpers/snapshot-fixture.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';

const CFTC = join(SHARED_DATA, 'cftc');
const LEGACY_ANNUAL = join(CFTC, 'legacy_futures_only_2025_annual.txt');
const DISAGG_ANNUAL = join(CFTC, 'disaggregated_futures_only_2021_f_year.txt');
const SLUG = /^[a-z0-9-]{1,64}$/;

type Row = Record<string, unknown>;

async function call(db: SnapshotDb, fn: PayloadFunction, slug: string | null = null) {
  const payload = await fn({ db, now: FIXTURE_NOW, keyed: false }, { slug, query: {}, keyedParams: [] });
  return { data: payload.data as Row[], meta: (payload.meta ?? {}) as Row };
}

/** The distinct trimmed market codes of a real CFTC file, read with DuckDB. */
async function readCodes(file: string, column: string): Promise<Set<string>> {
  const duck = await openDuckDb();
  const connection = await duck.connect();
  try {
    const rows = await readCsvFile(connection, file);
    return new Set(rows.map((row) => (row.values[column] ?? '').trim()));
  } finally {
    connection.closeSync();
    duck.closeSync();
  }
}

describe('COT markets on the real data: every market of the files is served', () => {
  let fixture: SnapshotFixture;
  let db: SnapshotDb;
  let markets: MarketRow[];
  const byCode = (code: string) => markets.find((m) => m.code === code)!;

  beforeAll(async () => {
    fixture = await createRealSnapshot();
    db = await fixture.open();
    markets = await readMarkets(db);
  });

  afterAll(async () => {
    await db?.close();
    fixture?.remove();
  });

  it('lists every market of legacy_futures_only_2025_annual.txt (351 codes, 352 names) with a unique slug', async () => {
    const codes = await readCodes(LEGACY_ANNUAL, 'CFTC Contract Market Code');
    expect(codes.size).toBe(351);
    const listed = new Set(markets.map((m) => m.code));
    for (const code of codes) expect(listed.has(code), code).toBe(true);
    const slugs = markets.map((m) => m.slug);
    expect(new Set(slugs).size).toBe(slugs.length);
    for (const slug of slugs) expect(slug, slug).toMatch(SLUG);
    const { data } = await call(db, getCotSummary);
    const summarised = new Set(data.map((row) => row.code));
    for (const code of codes) expect(summarised.has(code), code).toBe(true);
  });

  it('answers /markets/cot/{slug} for every market of the legacy file, and the static build lists each', async () => {
    const codes = await readCodes(LEGACY_ANNUAL, 'CFTC Contract Market Code');
    const requests = await listStaticRequests(db);
    const files = new Set(requests.map((r) => r.file));
    for (const code of codes) {
      const market = byCode(code);
      const { data, meta } = await call(db, getCotMarketPublic, market.slug);
      expect(data.length, market.slug).toBeGreaterThan(0);
      expect((meta.market as Row).code).toBe(code);
      expect(files.has(`api/v1/markets/cot/${market.slug}/index.json`), market.slug).toBe(true);
    }
  });

  it('keeps the slugs, names and sectors the catalog gives its ten markets', () => {
    expect(byCode('088691')).toMatchObject({ slug: 'gold', name: 'Gold', mic: 'XCEC', sector: 'metals' });
    expect(byCode('067651')).toMatchObject({ slug: 'wti-crude-oil', sector: 'energy' });
    expect(byCode('023651')).toMatchObject({ slug: 'natural-gas' });
    expect(byCode('13874A')).toMatchObject({ slug: 'e-mini-sp-500', report_types: ['legacy', 'tff'] });
    expect(byCode('133741').slug).toBe('bitcoin');
  });

  it('keeps every name a market was published under: 067651 was renamed between 2021 and 2025', () => {
    expect(byCode('067651').names).toEqual([
      {
        name: 'CRUDE OIL, LIGHT SWEET - NEW YORK MERCANTILE EXCHANGE',
        first_report: '2021-01-05',
        last_report: '2021-03-16',
      },
      {
        name: 'WTI-PHYSICAL - NEW YORK MERCANTILE EXCHANGE',
        first_report: '2025-01-07',
        last_report: '2025-03-11',
      },
    ]);
  });

  it('derives the slug from the first name and the display name from the latest (173LM1, renamed in 2025)', () => {
    expect(byCode('173LM1')).toMatchObject({
      slug: 'stellar',
      name: 'NANO STELLAR',
      exchange_code: 'FREX',
      mic: 'FREX',
      // Commodity 173 appears in no file with a subgroup: no sector is guessed.
      sector: null,
    });
    expect(byCode('173LM1').names.map((n) => n.name)).toEqual([
      'STELLAR - LMX LABS LLC',
      'NANO STELLAR - LMX LABS LLC',
    ]);
  });

  it('maps exchange codes to MICs and subgroups to sectors, also through the commodity code', () => {
    expect(byCode('232741')).toMatchObject({
      name: 'AUSTRALIAN DOLLAR',
      exchange: 'CHICAGO MERCANTILE EXCHANGE',
      exchange_code: 'CME',
      mic: 'XCME',
      subgroup_code: 'F10',
      sector: 'rates-fx',
    });
    expect(byCode('0233D4')).toMatchObject({ exchange_code: 'IFED', mic: 'IFED', sector: 'energy' });
    // 052644 (CME MILK IV) is only in the legacy file, which has no subgroups; its commodity
    // code 052 is dairy (A25) in the disaggregated file.
    expect(byCode('052644')).toMatchObject({
      subgroup_code: null,
      commodity_code: '052',
      sector: 'agriculture',
    });
    // N30 (lumber) maps to no sector of ours.
    expect(byCode('058644')).toMatchObject({ commodity_code: '058', sector: null });
  });

  it('shows in /markets/cot the latest report across report types (TFF runs a year past legacy)', async () => {
    const { data } = await call(db, getCotSummary);
    const spx = data.find((row) => row.code === '13874A')!;
    expect(spx.latest).toMatchObject({ report_type: 'tff', report_date: '2026-03-17' });
    const gold = data.find((row) => row.code === '088691')!;
    expect(gold.latest).toMatchObject({ report_type: 'legacy', report_date: '2025-03-11' });
  });

  it('lists in /markets/cot each market with its first and last report and active (per report type)', async () => {
    const { data } = await call(db, getCotSummary);
    const row = (code: string) => data.find((market) => market.code === code)!;
    // Renamed between the 2021 and 2025 files, reported in the latest legacy week.
    expect(row('067651')).toMatchObject({
      first_report: '2021-01-05',
      last_report: '2025-03-11',
      active: true,
    });
    expect(row('13874A')).toMatchObject({ last_report: '2026-03-17', active: true });
    // Last in the legacy file on 2025-02-18 (latest legacy week 2025-03-11), in the 2021 file on
    // 2021-02-16 (latest 2021-03-16): no longer reported.
    expect(row('06439E')).toMatchObject({
      first_report: '2021-02-16',
      last_report: '2025-02-18',
      active: false,
    });
    // Only in the 2021 disaggregated file, up to its last week: active as far as the snapshot knows.
    expect(row('058643')).toMatchObject({ last_report: '2021-03-16', active: true });
    // The current files show no code handing over to another.
    for (const market of data)
      expect([market.replaces, market.replaced_by], String(market.code)).toEqual([[], []]);
  });

  it('says in meta.window how many of the latest 12 reports there are', async () => {
    const { data, meta } = await call(db, getCotMarketPublic, 'gold');
    expect(data).toHaveLength(10);
    expect(meta.window).toEqual({
      reports: 10,
      limit: 12,
      from: '2025-01-07',
      to: '2025-03-11',
      full_history: false,
    });
  });
});

describe('COT market slugs are stable across renames (no catalog overrides)', () => {
  const temp = createTempDir('mmds-cot-slugs-');
  const env = { MMDS_DATA_DIR: join(temp.dir, 'data'), MMDS_DIST_DIR: join(temp.dir, 'dist') };

  const run = async (...argv: string[]) => {
    const result = await runMmds(argv, env);
    expect(result.code, result.stderr).toBe(0);
  };
  const publishAndRead = async (): Promise<MarketRow[]> => {
    await run('publish');
    const layout = resolveLayout(env.MMDS_DATA_DIR);
    const db = await openSnapshotDb(layout, readCurrentId(layout)!);
    try {
      return await readMarkets(db);
    } finally {
      await db.close();
    }
  };

  afterAll(() => temp.remove());

  it('keeps the slug of the first-seen name when a later file names the market differently', async () => {
    const catalog = parseYaml(readFileSync(join(REPO_ROOT, 'data/catalog/catalog.yaml'), 'utf8')) as Row;
    const file = join(temp.dir, 'catalog.yaml');
    writeFileSync(file, stringifyYaml({ ...catalog, markets: [] }));
    await run('ingest', 'catalog', file);
    await run('ingest', 'cftc', LEGACY_ANNUAL);
    const before = await publishAndRead();
    const oil = before.find((m) => m.code === '067651')!;
    const gas = before.find((m) => m.code === '023651')!;
    // The legacy file carries no subgroup codes: no sector yet.
    expect(oil).toMatchObject({ slug: 'wti-physical', name: 'WTI-PHYSICAL', sector: null, mic: 'XNYM' });
    expect(gas).toMatchObject({ slug: 'nat-gas-nyme', name: 'NAT GAS NYME' });

    // The 2021 file names them differently (and is older): the slugs stay.
    await run('ingest', 'cftc', DISAGG_ANNUAL);
    const after = await publishAndRead();
    expect(after.find((m) => m.code === '067651')).toMatchObject({
      slug: 'wti-physical',
      name: 'WTI-PHYSICAL',
      sector: 'energy',
    });
    expect(after.find((m) => m.code === '023651')?.slug).toBe('nat-gas-nyme');
    expect(after.find((m) => m.code === '067651')?.names).toHaveLength(2);
    // Markets first seen in the newer batch cannot take a slug already given out.
    const slugs = after.map((m) => m.slug);
    expect(new Set(slugs).size).toBe(slugs.length);
    for (const market of before) {
      expect(after.find((m) => m.code === market.code)?.slug, market.code).toBe(market.slug);
    }
  });

  it('reads the latest 12 of the 30 weekly reports of a real series (CIT supplement, 2024), oldest first', async () => {
    await run(
      'ingest',
      'cftc',
      join(REPO_ROOT, 'test/fixtures/cftc/cit_supplemental_2024_selected_markets.txt'),
    );
    await run('publish');
    const layout = resolveLayout(env.MMDS_DATA_DIR);
    const db = await openSnapshotDb(layout, readCurrentId(layout)!);
    try {
      const reports = await readRecentReports(db, 'cftc.001602.cit.combined', 12);
      expect(reports.map((r) => r.period)).toEqual([
        '2024-05-07',
        '2024-05-14',
        '2024-05-21',
        '2024-05-28',
        '2024-06-04',
        '2024-06-11',
        '2024-06-18',
        '2024-06-25',
        '2024-07-02',
        '2024-07-09',
        '2024-07-16',
        '2024-07-23',
      ]);
      // The CIT supplement is served as the market's report type `cit`, after its futures reports.
      const wheat = (await readMarkets(db)).find((m) => m.code === '001602');
      expect(wheat?.report_types).toEqual(['legacy', 'disaggregated', 'cit']);
      const payload = await getCotMarketPublic(
        { db, now: FIXTURE_NOW, keyed: false },
        { slug: wheat!.slug, query: { report_type: 'cit' }, keyedParams: [] },
      );
      const rows = payload.data as Array<{ report_date: string; report_type: string }>;
      expect(rows.map((r) => r.report_date)).toEqual(reports.map((r) => r.period));
      expect(new Set(rows.map((r) => r.report_type))).toEqual(new Set(['cit']));
    } finally {
      await db.close();
    }
  });
});
