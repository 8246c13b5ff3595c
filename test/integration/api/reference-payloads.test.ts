import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { getResearch, getSources } from '../../../src/api/v1/catalog.ts';
import type { ApiContext, PayloadFunction } from '../../../src/api/v1/context.ts';
import { PAYLOADS } from '../../../src/api/v1/endpoints.ts';
import { getCountries, getCurrencies, getVenues } from '../../../src/api/v1/reference.ts';
import { getSectors } from '../../../src/api/v1/sectors.ts';
import { getSeriesCatalogue } from '../../../src/api/v1/series.ts';
import { listStaticRequests } from '../../../src/api/v1/static-requests.ts';
import { ApiError } from '../../../src/contract/errors.ts';
import type { RouteId } from '../../../src/contract/routes.ts';
import { openDuckDb, readCsvFile } from '../../../src/db/duckdb.ts';
import { openSnapshotDb, type SnapshotDb } from '../../../src/query/snapshot-db.ts';
import { CFTC_COMMODITY_SECTORS, CFTC_SUBGROUP_SECTORS } from '../../../src/store/cftc-codes.ts';
import { resolveLayout } from '../../../src/store/layout.ts';
import { readCurrentId } from '../../../src/store/manifest.ts';
import { parsedQuery } from '../../helpers/parsed-query.ts';
import { LICENSED_FIXTURE, REPO_ROOT, SAMPLE_DATA } from '../../helpers/paths.ts';
import { FIXTURE_NOW, runMmds } from '../../helpers/run-cli.ts';
import {
  createSampleSnapshot,
  LICENSED_SERIES_KEY,
  type SnapshotFixture,
} from '../../helpers/snapshot-fixture.ts';

interface CatalogFile {
  sources: Array<{ id: string; rights: string }>;
  series: Array<{ key: string; source: string; country?: string; currency?: string; sector?: string }>;
  markets: Array<{ code: string; slug: string; sector: string }>;
  sectors: Array<{ id: string }>;
}

const readCatalog = (file: string) => parseYaml(readFileSync(file, 'utf8')) as CatalogFile;
const CATALOG = readCatalog(join(REPO_ROOT, 'data/catalog/catalog.yaml'));
/** The test-only licensed vendor (test/fixtures/licensed/), ingested on top of the sample. */
const LICENSED = readCatalog(join(LICENSED_FIXTURE, 'catalog.yaml'));
const LICENSED_SOURCE = LICENSED.sources[0]!.id;
/** A sector with no series and no market, added by the test to see `coverage: none`. */
const EMPTY_SECTOR = { id: 'probe-empty', name: 'Probe', description: 'A sector without members.' };
const OPEN_RIGHTS = ['public_domain', 'open_licence'];
const PUBLIC_SOURCES = new Set(
  CATALOG.sources.filter((s) => OPEN_RIGHTS.includes(s.rights)).map((s) => s.id),
);
const PUBLIC_SERIES = CATALOG.series.filter((s) => PUBLIC_SOURCES.has(s.source));
const REFERENCE = join(SAMPLE_DATA, 'reference');

type Rows = Array<Record<string, unknown>>;
type CsvRows = Array<Record<string, string | null>>;

interface PipelineStep {
  source: string;
  files: string[];
  series?: string;
  vintage?: string;
  collected_at?: string;
}

const PIPELINE = JSON.parse(readFileSync(join(SAMPLE_DATA, 'pipeline.json'), 'utf8')) as PipelineStep[];
const stepOf = (source: string) => PIPELINE.find((step) => step.source === source)!;

/** One `<CcyNtry>` / `<HstrcCcyNtry>` of the sample's ISO 4217 XML files, read straight from the text. */
interface IsoEntry {
  code: string;
  withdrawn: string | null;
}

/** The entries with a currency code of list one and list three, as the sample ingests them. */
function readIsoEntries(): IsoEntry[] {
  const entries: IsoEntry[] = [];
  for (const file of ['iso4217_list_one_table_a1.xml', 'iso4217_list_three_table_a3_historic.xml']) {
    const text = readFileSync(join(REFERENCE, file), 'utf8');
    for (const [, , body] of text.matchAll(/<(CcyNtry|HstrcCcyNtry)>([\s\S]*?)<\/\1>/g)) {
      const code = /<Ccy>([A-Z]{3})<\/Ccy>/.exec(body!)?.[1];
      if (code === undefined) continue;
      entries.push({ code, withdrawn: /<WthdrwlDt>([^<]+)<\/WthdrwlDt>/.exec(body!)?.[1] ?? null });
    }
  }
  return entries;
}

const OWN_ROUTES: readonly RouteId[] = [
  'research',
  'sources',
  'series',
  'sectors',
  'countries',
  'currencies',
  'venues',
];

/**
 * Runs every pre-rendered request of these routes (each filter value and alias) and asserts
 * that nothing of the licensed test vendor shows: only /sources may name it, as metadata.
 */
async function sweepLicensedData(context: ApiContext): Promise<number> {
  const requests = (await listStaticRequests(context.db)).filter((r) => OWN_ROUTES.includes(r.route.id));
  let checked = 0;
  for (const request of requests) {
    for (const spelling of [request.query, ...request.aliases]) {
      const query = parsedQuery(spelling);
      const payload = await PAYLOADS[request.route.id](context, { slug: null, query, keyedParams: [] });
      for (const item of payload.data as Rows) {
        if (request.route.id === 'sources' && item.id === LICENSED_SOURCE)
          expect(item.redistributable).toBe(false);
        else expect(JSON.stringify(item)).not.toMatch(new RegExp(LICENSED_SOURCE, 'i'));
      }
      expect(JSON.stringify(payload.meta ?? {})).not.toMatch(new RegExp(LICENSED_SOURCE, 'i'));
      checked += 1;
    }
  }
  return checked;
}

describe('catalog and reference payloads on the sample snapshot', () => {
  let fixture: SnapshotFixture;
  let db: SnapshotDb;
  /** Rows of a file of data/sample (path relative to it), read as text by DuckDB. */
  let sampleCsv: (file: string) => Promise<CsvRows>;
  const csv = (file: string) => sampleCsv(join('reference', file));
  let closeCsv: () => void;

  const call = async (fn: PayloadFunction, query: Record<string, string> = {}, now = FIXTURE_NOW) => {
    const context: ApiContext = { db, now, keyed: false };
    const payload = await fn(context, { slug: null, query, keyedParams: [] });
    return { data: payload.data as Rows, meta: payload.meta ?? {} };
  };
  const keysOf = (rows: Rows) => rows.map((row) => row.key);

  beforeAll(async () => {
    fixture = await createSampleSnapshot({ licensed: true });
    // A note about a licensed series, a public one and an unknown source, to see the list cut down.
    const notes = join(fixture.dataDir, '..', 'extra-notes');
    mkdirSync(notes);
    writeFileSync(
      join(notes, 'rights-probe.md'),
      [
        '---',
        'title: Rights probe',
        'published_at: 2026-05-01T08:00:00Z',
        'authors: [test]',
        'summary: A note whose series list mixes rights classes.',
        'tags: [test]',
        `series: [${LICENSED_SERIES_KEY}, ecb.USD, nosuchsource.X, bls.CUUR0000SA0]`,
        '---',
        'Body.',
        '',
      ].join('\n'),
    );
    const probeCatalog = join(fixture.dataDir, '..', 'probe-catalog.yaml');
    writeFileSync(
      probeCatalog,
      `sources: []\nseries: []\nmarkets: []\nsectors:\n  - ${JSON.stringify(EMPTY_SECTOR)}\n`,
    );
    for (const argv of [['ingest', 'research', notes], ['ingest', 'catalog', probeCatalog], ['publish']]) {
      const run = await runMmds(argv, fixture.env);
      if (run.code !== 0) throw new Error(run.stderr);
    }
    const layout = resolveLayout(fixture.dataDir);
    db = await openSnapshotDb(layout, readCurrentId(layout)!);
    const duck = await openDuckDb();
    const connection = await duck.connect();
    sampleCsv = async (file) =>
      (await readCsvFile(connection, join(SAMPLE_DATA, file))).map((row) => row.values);
    closeCsv = () => {
      connection.closeSync();
      duck.closeSync();
    };
  });

  afterAll(async () => {
    await db?.close();
    closeCsv?.();
    fixture?.remove();
  });

  describe('research (endpoint 6)', () => {
    it('lists every note, newest first, with only series of redistributable sources', async () => {
      const { data } = await call(getResearch);
      const files = readdirSync(join(SAMPLE_DATA, 'research')).filter((f) => f.endsWith('.md'));
      expect(data).toHaveLength(files.length + 1);
      const dates = data.map((row) => row.published_at as string);
      expect(dates).toEqual([...dates].sort().reverse());
      const probe = data.find((row) => row.id === 'rights-probe')!;
      expect(probe.series).toEqual(['ecb.USD', 'bls.CUUR0000SA0']);
      expect(probe.slug).toBe('rights-probe');
      expect(probe.body_markdown).toContain('Body.');
      const gold = data.find((row) => row.slug === 'gold-positioning-vs-price-trend')!;
      expect(gold.series).toEqual(['cftc.088691.legacy', 'cftc.088691.disaggregated']);
    });
  });

  describe('sources (endpoint 7)', () => {
    it('lists every catalog source with its rights class and catalog series count', async () => {
      const { data } = await call(getSources);
      const sources = [...CATALOG.sources, ...LICENSED.sources];
      const series = [...CATALOG.series, ...LICENSED.series];
      expect(data.map((row) => row.id)).toEqual(sources.map((s) => s.id).sort());
      for (const source of sources) {
        const row = data.find((r) => r.id === source.id)!;
        expect(row.rights).toBe(source.rights);
        expect(row.redistributable).toBe(OPEN_RIGHTS.includes(source.rights));
        expect(row.series_count).toBe(series.filter((s) => s.source === source.id).length);
      }
      // The data is real: no source is marked as invented sample data.
      expect(data.filter((row) => row.sample)).toEqual([]);
      expect(data.find((r) => r.id === LICENSED_SOURCE)).toMatchObject({
        rights: 'licensed',
        redistributable: false,
        series_count: 1,
      });
      expect(data.find((r) => r.id === 'fred')).toMatchObject({ redistributable: false });
    });
  });

  describe('series catalogue (endpoint 9)', () => {
    it('lists only series of redistributable sources, by key, with their latest value', async () => {
      const { data, meta } = await call(getSeriesCatalogue);
      expect(keysOf(data)).toEqual(PUBLIC_SERIES.map((s) => s.key).sort());
      expect(meta.filters).toEqual({});
      // ECB: the newest row of the history extract (newest first); the daily XML is older.
      const ecb = await sampleCsv(stepOf('ecb').files[0]!);
      const latestOf = (currency: string) => ecb.find((row) => row[currency] !== 'N/A') ?? null;
      const newest = ecb[0]!;
      expect(data.find((row) => row.key === 'ecb.USD')!.latest).toMatchObject({
        period: newest.Date,
        value: Number(newest.USD),
        revision_number: 1,
      });
      // A discontinued currency keeps its last quote; one quoted nowhere in the extract has none.
      const bgn = latestOf('BGN')!;
      expect(bgn.Date! < newest.Date!).toBe(true);
      expect(data.find((row) => row.key === 'ecb.BGN')!.latest).toMatchObject({
        period: bgn.Date,
        value: Number(bgn.BGN),
      });
      expect(latestOf('CYP')).toBeNull();
      expect(data.find((row) => row.key === 'ecb.CYP')!.latest).toBeNull();
      // Payrolls: the last month of the newest PAYEMS vintage, known from that vintage's release
      // (08:30 New York, EDT in October). The older vintage ends in 2025-07, so it is revision 1.
      const vintages = PIPELINE.filter((step) => step.series === 'bls.CES0000000001').sort((a, b) =>
        a.vintage!.localeCompare(b.vintage!),
      );
      expect(vintages).toHaveLength(2);
      const latestVintage = vintages.at(-1)!;
      const [date, value] = Object.values((await sampleCsv(latestVintage.files[0]!)).at(-1)!);
      expect(data.find((row) => row.key === 'bls.CES0000000001')!.latest).toEqual({
        period: date!.slice(0, 7),
        value: Number(value),
        observed_at: `${latestVintage.vintage}T12:30:00Z`,
        revision_number: 1,
      });
    });

    it('filters by country, currency and region, names and codes alike', async () => {
      const us = PUBLIC_SERIES.filter((s) => s.country === 'US')
        .map((s) => s.key)
        .sort();
      expect(us.length).toBeGreaterThan(0);
      expect(keysOf((await call(getSeriesCatalogue, { country: 'US' })).data)).toEqual(us);
      expect(keysOf((await call(getSeriesCatalogue, { currency: 'USD' })).data)).toEqual(['ecb.USD']);
      // The US lies in Northern America (021) inside the Americas (019).
      for (const region of ['021', 'northern-america', '019', 'americas']) {
        expect(keysOf((await call(getSeriesCatalogue, { region })).data)).toEqual(us);
      }
      const europe = await call(getSeriesCatalogue, { region: 'europe' });
      expect(europe.meta.filters).toEqual({ region: '150' });
      expect(keysOf(europe.data)).toEqual(
        PUBLIC_SERIES.filter((s) => s.source === 'ecb')
          .map((s) => s.key)
          .sort(),
      );
      expect((await call(getSeriesCatalogue, { region: '150' })).data).toEqual(europe.data);
      expect(keysOf((await call(getSeriesCatalogue, { region: 'world' })).data)).toHaveLength(
        PUBLIC_SERIES.length,
      );
      expect((await call(getSeriesCatalogue, { country: 'US', currency: 'USD' })).data).toEqual([]);
    });

    it('answers an empty list for a known code without series, invalid_parameter for an unknown one', async () => {
      expect((await call(getSeriesCatalogue, { country: 'DE' })).data).toEqual([]);
      const unknown: Array<Record<string, string>> = [
        { country: 'ZZ' },
        { currency: 'ZZZ' },
        { region: 'atlantis' },
        { region: '999' },
      ];
      for (const query of unknown) {
        const error = await call(getSeriesCatalogue, query).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ApiError);
        expect(error).toMatchObject({ code: 'invalid_parameter', status: 400 });
      }
    });
  });

  describe('sectors (endpoint 10)', () => {
    const sectorsAt = async (now: string) => {
      const { data } = await call(getSectors, {}, new Date(now));
      return new Map(data.map((row) => [row.id as string, row]));
    };
    const catalogSectors = new Map(CATALOG.markets.map((m) => [m.code, m.sector]));

    /**
     * Every contract market code of the sample's CFTC files (each is a served COT market) with its
     * sector: the catalog's, else the one of its commodity code where that table names one (VIX),
     * else the one of the CFTC subgroup code its files give (the deep TFF markets of 2013-2016 are
     * not in the catalog), by the tables of src/store/cftc-codes.ts.
     */
    const readMarketSectors = async () => {
      const sectors = new Map<string, string | undefined>();
      for (const file of stepOf('cftc').files) {
        for (const row of await sampleCsv(file)) {
          const code = (row['CFTC Contract Market Code'] ?? row.CFTC_Contract_Market_Code)!.trim();
          const subgroup = (row.CFTC_SubGroup_Code ?? '').trim();
          const commodity = (row['CFTC Commodity Code'] ?? row.CFTC_Commodity_Code ?? '').trim();
          sectors.set(
            code,
            catalogSectors.get(code) ?? CFTC_COMMODITY_SECTORS[commodity] ?? CFTC_SUBGROUP_SECTORS[subgroup],
          );
        }
      }
      return sectors;
    };

    /** The newest report date of a sample CFTC file. */
    const lastReportDate = async (fileName: string) => {
      const file = stepOf('cftc').files.find((f) => f.includes(fileName))!;
      const rows = await sampleCsv(file);
      return rows
        .map((row) => (row['As of Date in Form YYYY-MM-DD'] ?? row['Report_Date_as_YYYY-MM-DD'])!)
        .sort()
        .at(-1);
    };

    it('counts the catalog series of redistributable sources and every COT market of the data', async () => {
      const sectors = await sectorsAt(FIXTURE_NOW.toISOString());
      expect([...sectors.keys()]).toEqual([...CATALOG.sectors.map((s) => s.id), EMPTY_SECTOR.id].sort());
      const marketSectors = await readMarketSectors();
      expect(marketSectors.size).toBeGreaterThan(0);
      for (const [code, sector] of marketSectors) expect(sector, code).toBeTruthy();
      for (const { id } of CATALOG.sectors) {
        const row = sectors.get(id)!;
        expect(row.series_count, id).toBe(PUBLIC_SERIES.filter((s) => s.sector === id).length);
        expect(row.markets_count, id).toBe(
          [...marketSectors.values()].filter((sector) => sector === id).length,
        );
        expect(
          (row.fresh_series as number) + (row.stale_series as number) + (row.series_without_data as number),
        ).toBe(row.series_count);
        expect(
          (row.fresh_markets as number) +
            (row.stale_markets as number) +
            (row.markets_without_data as number),
        ).toBe(row.markets_count);
      }
    });

    it('is stale where data exists but nothing is fresh, none where there is no data', async () => {
      const sectors = await sectorsAt(FIXTURE_NOW.toISOString());
      // Every catalog sector has data in the sample, and all of it is older than its allowance
      // at FIXTURE_NOW: the newest value is the PAYEMS vintage released on 2026-10-02.
      for (const { id } of CATALOG.sectors) expect(sectors.get(id)!.coverage, id).toBe('stale');
      const newestVintage = PIPELINE.filter((step) => step.series === 'bls.CES0000000001')
        .map((step) => step.vintage!)
        .sort()
        .at(-1);
      expect(sectors.get('labour')!.last_observed_at).toBe(`${newestVintage}T12:30:00Z`);
      expect(sectors.get(EMPTY_SECTOR.id)).toMatchObject({
        series_count: 0,
        markets_count: 0,
        coverage: 'none',
        last_observed_at: null,
      });
    });

    it('is full when everything is fresh, partial when some is', async () => {
      // TFF (equities, crypto): the newest report, of Tuesday 2026-03-17, was released on Friday
      // 2026-03-20 at 15:30 New York (EDT); three days later bitcoin and the E-mini S&P 500 are
      // fresh. Crypto holds bitcoin only: full. Equities also holds the E-mini Nasdaq-100 and VIX
      // of the deep TFF history, whose last reports are of 2016-03-15: partial.
      expect(await lastReportDate('tff_futures_only_2026')).toBe('2026-03-17');
      const march2026 = await sectorsAt('2026-03-23T12:00:00Z');
      const tffFresh = { fresh_markets: 1, last_observed_at: '2026-03-20T19:30:00Z' };
      expect(march2026.get('crypto')).toMatchObject({ coverage: 'full', ...tffFresh });
      expect(march2026.get('equities')).toMatchObject({ coverage: 'partial', stale_markets: 2, ...tffFresh });
      // Legacy (commodities): the newest report, of 2025-03-11, was released on Friday 2025-03-14.
      expect(await lastReportDate('legacy_')).toBe('2025-03-11');
      const march2025 = await sectorsAt('2025-03-17T12:00:00Z');
      for (const id of ['metals', 'energy', 'agriculture']) {
        const markets = [...catalogSectors.values()].filter((sector) => sector === id).length;
        expect(march2025.get(id), id).toMatchObject({
          coverage: 'full',
          fresh_markets: markets,
          last_observed_at: '2025-03-14T19:30:00Z',
        });
      }
      // Labour: three days after the newest PAYEMS vintage only payrolls are fresh (BLS allows 45
      // days); the CPS, SAE and release-vintage series stopped long before.
      const newestVintage = PIPELINE.filter((step) => step.series === 'bls.CES0000000001')
        .map((step) => step.vintage!)
        .sort()
        .at(-1)!;
      const labour = PUBLIC_SERIES.filter((s) => s.sector === 'labour').length;
      const threeDaysAfter = new Date(Date.parse(`${newestVintage}T12:30:00Z`) + 3 * 86_400_000);
      expect((await sectorsAt(threeDaysAfter.toISOString())).get('labour')).toMatchObject({
        coverage: 'partial',
        fresh_series: 1,
        stale_series: labour - 1,
      });
      // Prices: CPI-U values before 2010 carry the collection time of the datahub file, its
      // newest knowledge time; the day after it the one price series is fresh.
      const cpiCollected = PIPELINE.find((step) => step.files[0]!.includes('cpi'))!.collected_at!;
      const dayAfter = new Date(Date.parse(cpiCollected) + 86_400_000).toISOString();
      expect((await sectorsAt(dayAfter)).get('prices')).toMatchObject({
        coverage: 'full',
        fresh_series: 1,
        last_observed_at: cpiCollected,
      });
      // Rates and FX the day after the newest ECB rate (16:00 Frankfurt, 14:00 UTC in summer
      // time): the currencies quoted that day are fresh, BGN (last quoted 2025-12-31) is stale,
      // currencies quoted nowhere in the extract have no data, and the COT markets are stale.
      const ecb = await sampleCsv(stepOf('ecb').files[0]!);
      const newest = ecb[0]!;
      const quoted = (row: Record<string, string | null>, currency: string) =>
        row[currency] !== undefined && row[currency] !== null && row[currency] !== 'N/A';
      const currencies = PUBLIC_SERIES.filter((s) => s.sector === 'rates-fx').map(
        (s) => s.key.split('.')[1]!,
      );
      const fresh = currencies.filter((c) => quoted(newest, c)).length;
      const withData = currencies.filter((c) => ecb.some((row) => quoted(row, c))).length;
      expect(fresh).toBeGreaterThan(0);
      expect(withData).toBeGreaterThan(fresh);
      const dayAfterEcb = new Date(Date.parse(`${newest.Date}T12:00:00Z`) + 86_400_000).toISOString();
      expect((await sectorsAt(dayAfterEcb)).get('rates-fx')).toMatchObject({
        coverage: 'partial',
        fresh_series: fresh,
        stale_series: withData - fresh,
        series_without_data: currencies.length - withData,
        fresh_markets: 0,
        stale_markets: [...(await readMarketSectors()).values()].filter((sector) => sector === 'rates-fx')
          .length,
        last_observed_at: `${newest.Date}T14:00:00Z`,
      });
    });
  });

  describe('countries (endpoint 12)', () => {
    it('lists every M49 row by ISO2 with areas, currencies, time zones and coverage', async () => {
      const m49 = await csv('unsd_m49_overview_en.csv');
      const { data } = await call(getCountries);
      expect(data.map((row) => row.iso2)).toEqual(m49.map((row) => row['ISO-alpha2 Code']).sort());
      const gb = data.find((row) => row.iso2 === 'GB')!;
      const gbRow = m49.find((row) => row['ISO-alpha2 Code'] === 'GB')!;
      expect(gb.region).toEqual({
        code: gbRow['Region Code']!.padStart(3, '0'),
        name: 'Europe',
        slug: 'europe',
      });
      expect((gb.sub_region as { code: string }).code).toBe(gbRow['Sub-region Code']!.padStart(3, '0'));
      const codes = await csv('country-codes.csv');
      const gbCurrency = codes.find((row) => row['ISO3166-1-Alpha-2'] === 'GB')![
        'ISO4217-currency_alphabetic_code'
      ];
      expect(gb.currencies).toEqual([gbCurrency]);
      // Both IANA tables: zone1970.tab lists several countries per zone, zone.tab one (AG is
      // America/Puerto_Rico in the first and America/Antigua in the second).
      const zones = ['zone1970.tab', 'zone.tab'].flatMap((file) =>
        readFileSync(join(REFERENCE, file), 'utf8')
          .split('\n')
          .filter((line) => line !== '' && !line.startsWith('#'))
          .map((line) => line.split('\t')),
      );
      for (const country of data) {
        const expected = zones
          .filter(([c]) => c!.split(',').includes(country.iso2 as string))
          .map(([, , z]) => z!);
        expect(country.time_zones, country.iso2 as string).toEqual([...new Set(expected)].sort());
      }
      expect(data.find((row) => row.iso2 === 'AG')!.time_zones).toEqual([
        'America/Antigua',
        'America/Puerto_Rico',
      ]);
      const venues = await csv('ISO10383_MIC.csv');
      const liveUs = venues.filter(
        (v) => v['ISO COUNTRY CODE (ISO 3166)'] === 'US' && v.STATUS !== 'EXPIRED',
      );
      const usSeries = PUBLIC_SERIES.filter((s) => s.country === 'US').length;
      expect(data.find((row) => row.iso2 === 'US')!.coverage).toEqual({
        series: usSeries,
        venues: liveUs.length,
      });
      expect(data.find((row) => row.iso2 === 'AQ')).toMatchObject({ region: null, currencies: [] });
    });

    it('filters by region at any level, by code or name', async () => {
      const m49 = await csv('unsd_m49_overview_en.csv');
      const inEurope = m49.filter((row) => row['Region Code'] === '150').map((row) => row['ISO-alpha2 Code']);
      const europe = await call(getCountries, { region: 'europe' });
      expect(europe.data.map((row) => row.iso2)).toEqual(inEurope.sort());
      expect(europe.meta.filters).toEqual({ region: '150' });
      expect((await call(getCountries, { region: '150' })).data).toEqual(europe.data);
      const north = m49
        .filter((row) => row['Sub-region Code'] === '154')
        .map((row) => row['ISO-alpha2 Code']);
      expect((await call(getCountries, { region: 'northern-europe' })).data.map((r) => r.iso2)).toEqual(
        north.sort(),
      );
      expect((await call(getCountries, { region: '001' })).data).toHaveLength(m49.length);
    });
  });

  describe('currencies (endpoint 13)', () => {
    it('lists every ISO 4217 code of list one and list three once, current when any entity still uses it', async () => {
      const entries = readIsoEntries();
      const codes = [...new Set(entries.map((entry) => entry.code))].sort();
      const { data } = await call(getCurrencies);
      expect(data.map((row) => row.code)).toEqual(codes);
      for (const currency of data) {
        const own = entries.filter((entry) => entry.code === currency.code);
        const current = own.some((entry) => entry.withdrawn === null);
        expect(currency.current).toBe(current);
        expect(currency.withdrawn === null).toBe(current);
        // Every list-three entry of the code, none lost to the merge.
        const historic = own.filter((entry) => entry.withdrawn !== null);
        expect(currency.withdrawals, currency.code as string).toHaveLength(historic.length);
      }
      expect(data.find((row) => row.code === 'HRK')).toMatchObject({
        current: false,
        withdrawn: '2023-01',
        withdrawals: [
          { entity: 'CROATIA', name: 'Croatian Kuna', withdrawn: '2015-06' },
          { entity: 'CROATIA', name: 'Kuna', withdrawn: '2023-01' },
        ],
      });
    });
  });

  describe('venues (endpoint 14)', () => {
    it('lists every MIC by code, whatever its status, with its time zone and currencies', async () => {
      const mics = await csv('ISO10383_MIC.csv');
      const { data } = await call(getVenues);
      expect(data.map((row) => row.mic)).toEqual(mics.map((row) => row.MIC).sort());
      expect(data.find((row) => row.mic === 'XNYS')).toMatchObject({
        city: 'NEW YORK',
        time_zone: 'America/New_York',
        time_zone_exact: true,
        currencies: ['USD'],
      });
      expect(data.find((row) => row.mic === 'XTKS')).toMatchObject({ time_zone: 'Asia/Tokyo' });
      expect(data.find((row) => row.mic === 'XOCH')).toMatchObject({ status: 'EXPIRED' });
    });

    it('filters by country; a known country without venues is empty, an unknown one a 400', async () => {
      const mics = await csv('ISO10383_MIC.csv');
      const us = mics.filter((row) => row['ISO COUNTRY CODE (ISO 3166)'] === 'US').map((row) => row.MIC);
      const { data, meta } = await call(getVenues, { country: 'US' });
      expect(data.map((row) => row.mic)).toEqual(us.sort());
      expect(meta.filters).toEqual({ country: 'US' });
      expect((await call(getVenues, { country: 'AQ' })).data).toEqual([]);
      await expect(call(getVenues, { country: 'QQ' })).rejects.toMatchObject({ code: 'invalid_parameter' });
    });

    it('accepts ZZ, the code the MIC list uses for venues of no country (XOFF, XXXX)', async () => {
      const mics = await csv('ISO10383_MIC.csv');
      const zz = mics.filter((row) => row['ISO COUNTRY CODE (ISO 3166)'] === 'ZZ').map((row) => row.MIC);
      expect(zz.length).toBeGreaterThan(0);
      const { data, meta } = await call(getVenues, { country: 'ZZ' });
      expect(data.map((row) => row.mic)).toEqual(zz.sort());
      expect(data.every((row) => row.time_zone === null && (row.currencies as string[]).length === 0)).toBe(
        true,
      );
      expect(meta.filters).toEqual({ country: 'ZZ' });
      // ZZ is no ISO 3166-1 country: the series catalogue still refuses it.
      await expect(call(getSeriesCatalogue, { country: 'ZZ' })).rejects.toMatchObject({
        code: 'invalid_parameter',
      });
    });
  });

  it('never puts the licensed test vendor in any payload data, for any filter value', async () => {
    // The licensed series is in the snapshot, so its absence from the payloads proves something.
    const stored = await db.query<{ n: number }>(
      'SELECT count(*)::INTEGER AS n FROM observations WHERE series_key = $key',
      { key: LICENSED_SERIES_KEY },
    );
    expect(stored[0]!.n).toBeGreaterThan(0);
    const checked = await sweepLicensedData({ db, now: FIXTURE_NOW, keyed: false });
    expect(checked).toBeGreaterThan(50);
  });
});
