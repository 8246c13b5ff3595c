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
import { resolveLayout } from '../../../src/store/layout.ts';
import { readCurrentId } from '../../../src/store/manifest.ts';
import { REPO_ROOT, SAMPLE_DATA } from '../../helpers/paths.ts';
import { FIXTURE_NOW, runMmds } from '../../helpers/run-cli.ts';
import { createSampleSnapshot, type SnapshotFixture } from '../../helpers/snapshot-fixture.ts';

interface CatalogFile {
  sources: Array<{ id: string; rights: string }>;
  series: Array<{ key: string; source: string; country?: string; currency?: string; sector?: string }>;
  markets: Array<{ slug: string; sector: string }>;
  sectors: Array<{ id: string }>;
}

const CATALOG = parseYaml(readFileSync(join(REPO_ROOT, 'data/catalog/catalog.yaml'), 'utf8')) as CatalogFile;
const OPEN_RIGHTS = ['public_domain', 'open_licence'];
const PUBLIC_SOURCES = new Set(
  CATALOG.sources.filter((s) => OPEN_RIGHTS.includes(s.rights)).map((s) => s.id),
);
const PUBLIC_SERIES = CATALOG.series.filter((s) => PUBLIC_SOURCES.has(s.source));
const REFERENCE = join(SAMPLE_DATA, 'reference');

type Rows = Array<Record<string, unknown>>;

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
 * that nothing of the licensed sample source shows: only /sources may name it, as metadata.
 */
async function sweepLicensedData(context: ApiContext): Promise<number> {
  const requests = (await listStaticRequests(context.db)).filter((r) => OWN_ROUTES.includes(r.route.id));
  let checked = 0;
  for (const request of requests) {
    for (const query of [request.query, ...request.aliases]) {
      const payload = await PAYLOADS[request.route.id](context, { slug: null, query, keyedParams: [] });
      for (const item of payload.data as Rows) {
        if (request.route.id === 'sources' && item.id === 'northwind')
          expect(item.redistributable).toBe(false);
        else expect(JSON.stringify(item)).not.toMatch(/northwind/i);
      }
      expect(JSON.stringify(payload.meta ?? {})).not.toMatch(/northwind/i);
      checked += 1;
    }
  }
  return checked;
}

describe('catalog and reference payloads on the sample snapshot', () => {
  let fixture: SnapshotFixture;
  let db: SnapshotDb;
  let csv: (file: string) => Promise<Array<Record<string, string | null>>>;
  let closeCsv: () => void;

  const call = async (fn: PayloadFunction, query: Record<string, string> = {}, now = FIXTURE_NOW) => {
    const context: ApiContext = { db, now, keyed: false };
    const payload = await fn(context, { slug: null, query, keyedParams: [] });
    return { data: payload.data as Rows, meta: payload.meta ?? {} };
  };
  const keysOf = (rows: Rows) => rows.map((row) => row.key);

  beforeAll(async () => {
    fixture = await createSampleSnapshot();
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
        'series: [northwind.FCI, ecb.USD, nosuchsource.X, bls.CUUR0000SA0]',
        '---',
        'Body.',
        '',
      ].join('\n'),
    );
    for (const argv of [['ingest', 'research', notes], ['publish']]) {
      const run = await runMmds(argv, fixture.env);
      if (run.code !== 0) throw new Error(run.stderr);
    }
    const layout = resolveLayout(fixture.dataDir);
    db = await openSnapshotDb(layout, readCurrentId(layout)!);
    const duck = await openDuckDb();
    const connection = await duck.connect();
    csv = async (file) => (await readCsvFile(connection, join(REFERENCE, file))).map((row) => row.values);
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
      expect(data.map((row) => row.id)).toEqual(CATALOG.sources.map((s) => s.id).sort());
      for (const source of CATALOG.sources) {
        const row = data.find((r) => r.id === source.id)!;
        expect(row.rights).toBe(source.rights);
        expect(row.redistributable).toBe(OPEN_RIGHTS.includes(source.rights));
        expect(row.series_count).toBe(CATALOG.series.filter((s) => s.source === source.id).length);
      }
      expect(data.find((r) => r.id === 'northwind')).toMatchObject({ redistributable: false, sample: true });
    });
  });

  describe('series catalogue (endpoint 9)', () => {
    it('lists only series of redistributable sources, by key, with their latest value', async () => {
      const { data, meta } = await call(getSeriesCatalogue);
      expect(keysOf(data)).toEqual(PUBLIC_SERIES.map((s) => s.key).sort());
      expect(meta.filters).toEqual({});
      const xml = readFileSync(join(SAMPLE_DATA, 'ecb/eurofxref-daily.xml'), 'utf8');
      const date = /time='([\d-]+)'/.exec(xml)![1];
      const usd = Number(/currency='USD' rate='([\d.]+)'/.exec(xml)![1]);
      expect(data.find((row) => row.key === 'ecb.USD')!.latest).toMatchObject({ period: date, value: usd });
      // Payrolls for 2025-12 were revised in the second BLS vintage, released at its observed_at.
      const pipeline = JSON.parse(readFileSync(join(SAMPLE_DATA, 'pipeline.json'), 'utf8')) as Array<{
        files: string[];
        observed_at?: string;
      }>;
      const vintage = pipeline.find((step) => step.files[0]!.endsWith('2026-02-06.json'))!;
      const bls = JSON.parse(readFileSync(join(SAMPLE_DATA, vintage.files[0]!), 'utf8'));
      const payrolls = bls.Results.series.find((s: { seriesID: string }) => s.seriesID === 'CES0000000001');
      expect(data.find((row) => row.key === 'bls.CES0000000001')!.latest).toEqual({
        period: '2025-12',
        value: Number(payrolls.data[0].value),
        observed_at: vintage.observed_at,
        revision_number: 2,
      });
      expect(data.find((row) => row.key === 'ecb.BGN')!.latest).toBeNull();
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

    it('counts the catalog series of redistributable sources and the tracked markets', async () => {
      const sectors = await sectorsAt(FIXTURE_NOW.toISOString());
      expect([...sectors.keys()]).toEqual(CATALOG.sectors.map((s) => s.id).sort());
      for (const { id } of CATALOG.sectors) {
        const row = sectors.get(id)!;
        expect(row.series_count).toBe(PUBLIC_SERIES.filter((s) => s.sector === id).length);
        expect(row.markets_count).toBe(CATALOG.markets.filter((m) => m.sector === id).length);
        expect(
          (row.fresh_series as number) + (row.stale_series as number) + (row.series_without_data as number),
        ).toBe(row.series_count);
      }
    });

    it('is stale where data exists but nothing is fresh, none where there is no data', async () => {
      const sectors = await sectorsAt(FIXTURE_NOW.toISOString());
      // The sample has COT data for corn, gold and euro FX only; none for crypto, equities, energy.
      for (const id of ['agriculture', 'metals', 'rates-fx', 'labour', 'prices'])
        expect(sectors.get(id)!.coverage).toBe('stale');
      for (const id of ['crypto', 'equities', 'energy']) {
        expect(sectors.get(id)).toMatchObject({ coverage: 'none', last_observed_at: null });
      }
    });

    it('is full when everything is fresh, partial when some is', async () => {
      // Three days after the COT release of 2026-03-10 positions (Friday 2026-03-13).
      const march = await sectorsAt('2026-03-16T12:00:00Z');
      expect(march.get('agriculture')).toMatchObject({ coverage: 'full', fresh_markets: 1 });
      expect(march.get('metals')).toMatchObject({
        coverage: 'partial',
        fresh_markets: 1,
        markets_without_data: 1,
      });
      // BLS allows 45 days: payrolls (revised 2026-02-06) are fresh, the rest (2026-01-09) not.
      expect(march.get('labour')).toMatchObject({ coverage: 'partial', fresh_series: 1, stale_series: 1 });
      expect(march.get('prices')).toMatchObject({ coverage: 'stale', stale_series: 1 });
      const february = await sectorsAt('2026-02-10T12:00:00Z');
      expect(february.get('prices')).toMatchObject({ coverage: 'full', fresh_series: 1 });
      expect(february.get('labour')).toMatchObject({ coverage: 'partial', fresh_series: 2, stale_series: 0 });
      // The day after the last ECB rate (2026-04-01): FX fresh, COT and BLS past their allowance.
      const april = await sectorsAt('2026-04-02T12:00:00Z');
      expect(april.get('rates-fx')).toMatchObject({
        coverage: 'partial',
        fresh_series: 10,
        stale_markets: 1,
      });
      expect(april.get('agriculture')!.coverage).toBe('stale');
      expect(april.get('rates-fx')!.last_observed_at).toBe('2026-04-01T14:00:00Z');
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
      const zones = readFileSync(join(REFERENCE, 'zone1970.tab'), 'utf8')
        .split('\n')
        .filter((line) => line !== '' && !line.startsWith('#'))
        .map((line) => line.split('\t'));
      for (const country of data) {
        const expected = zones
          .filter(([c]) => c!.split(',').includes(country.iso2 as string))
          .map(([, , z]) => z);
        expect(country.time_zones).toEqual(expected.sort());
      }
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

  it('never puts the licensed sample source in any payload data, for any filter value', async () => {
    const checked = await sweepLicensedData({ db, now: FIXTURE_NOW, keyed: false });
    expect(checked).toBeGreaterThan(50);
  });
});
