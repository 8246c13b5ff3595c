import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { getResearch } from '../../../src/api/v1/catalog.ts';
import type { ApiContext, PayloadFunction } from '../../../src/api/v1/context.ts';
import { PAYLOADS } from '../../../src/api/v1/endpoints.ts';
import { getCountries, getCurrencies, getVenues } from '../../../src/api/v1/reference.ts';
import { getSectors } from '../../../src/api/v1/sectors.ts';
import { getSeriesCatalogue } from '../../../src/api/v1/series.ts';
import { listStaticRequests, type StaticRequest } from '../../../src/api/v1/static-requests.ts';
import { ApiError } from '../../../src/contract/errors.ts';
import type { RouteId } from '../../../src/contract/routes.ts';
import { openDuckDb, readCsvFile } from '../../../src/db/duckdb.ts';
import type { SnapshotDb } from '../../../src/query/snapshot-db.ts';
import { parsedQuery } from '../../helpers/parsed-query.ts';
import { REPO_ROOT, SHARED_DATA } from '../../helpers/paths.ts';
import { FIXTURE_NOW } from '../../helpers/run-cli.ts';
import { createRealSnapshot, type SnapshotFixture } from '../../helpers/snapshot-fixture.ts';

type Rows = Array<Record<string, unknown>>;

interface CatalogFile {
  sources: Array<{ id: string; rights: string }>;
  series: Array<{ key: string; source: string; country?: string }>;
}

const CATALOG = parseYaml(readFileSync(join(REPO_ROOT, 'data/catalog/catalog.yaml'), 'utf8')) as CatalogFile;
const OPEN_RIGHTS = ['public_domain', 'open_licence'];
const PUBLIC_SOURCES = new Set(
  CATALOG.sources.filter((s) => OPEN_RIGHTS.includes(s.rights)).map((s) => s.id),
);
const OWN_ROUTES: readonly RouteId[] = [
  'research',
  'sources',
  'series',
  'sectors',
  'countries',
  'currencies',
  'venues',
];

describe('catalog and reference payloads on the real data', () => {
  let fixture: SnapshotFixture;
  let db: SnapshotDb;
  let csv: (file: string) => Promise<Array<Record<string, string | null>>>;
  let closeCsv: () => void;

  const context = (now = FIXTURE_NOW): ApiContext => ({ db, now, keyed: false });
  const call = async (fn: PayloadFunction, query: Record<string, string> = {}) => {
    const payload = await fn(context(), { slug: null, query, keyedParams: [] });
    return { data: payload.data as Rows, meta: payload.meta ?? {} };
  };

  beforeAll(async () => {
    fixture = await createRealSnapshot();
    db = await fixture.open();
    const duck = await openDuckDb();
    const connection = await duck.connect();
    csv = async (file) => (await readCsvFile(connection, join(SHARED_DATA, file))).map((row) => row.values);
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

  it('lists one country per row of the M49 overview, with GB in Europe (150) / Northern Europe (154)', async () => {
    const m49 = await csv('iso/unsd_m49_overview_en.csv');
    const { data } = await call(getCountries);
    expect(data).toHaveLength(m49.length);
    const gb = data.find((row) => row.iso2 === 'GB')!;
    expect(gb.region).toEqual({ code: '150', name: 'Europe', slug: 'europe' });
    expect(gb.sub_region).toEqual({ code: '154', name: 'Northern Europe', slug: 'northern-europe' });
    expect(gb.time_zones).toEqual(['Europe/London']);
    const mics = await csv('mic/ISO10383_MIC.csv');
    const liveGb = mics.filter((v) => v['ISO COUNTRY CODE (ISO 3166)'] === 'GB' && v.STATUS !== 'EXPIRED');
    expect((gb.coverage as { venues: number }).venues).toBe(liveGb.length);
    const usSeries = CATALOG.series.filter((s) => s.country === 'US' && PUBLIC_SOURCES.has(s.source)).length;
    expect((data.find((row) => row.iso2 === 'US')!.coverage as { series: number }).series).toBe(usSeries);
  });

  it('filters countries by region name and code alike', async () => {
    const m49 = await csv('iso/unsd_m49_overview_en.csv');
    const byName = await call(getCountries, { region: 'europe' });
    expect(byName.data).toEqual((await call(getCountries, { region: '150' })).data);
    expect(byName.data.map((row) => row.iso2)).toEqual(
      m49
        .filter((row) => row['Region Code'] === '150')
        .map((row) => row['ISO-alpha2 Code'])
        .sort(),
    );
  });

  it('lists one currency per distinct ISO 4217 code of list one and list three', async () => {
    // The real snapshot ingests SIX's two XML lists, as mmds fetch iso4217 does.
    const codes = new Set<string>();
    for (const file of [
      'iso/iso4217_list_one_table_a1.xml',
      'iso/iso4217_list_three_table_a3_historic.xml',
    ]) {
      const xml = readFileSync(join(SHARED_DATA, file), 'utf8');
      for (const [, code] of xml.matchAll(/<Ccy>([A-Z]{3})<\/Ccy>/g)) codes.add(code!);
    }
    const { data } = await call(getCurrencies);
    expect(data).toHaveLength(codes.size);
    expect(data.find((row) => row.code === 'EUR')).toMatchObject({ current: true, minor_units: 2 });
  });

  it('shows every withdrawal of a code withdrawn twice (HRK), each with its own name and date', async () => {
    const rows = await csv('iso/iso4217_codes-all.csv');
    const hrk = rows.filter((row) => row.AlphabeticCode === 'HRK');
    const { data } = await call(getCurrencies);
    const served = data.find((row) => row.code === 'HRK')!;
    expect(served).toMatchObject({ current: false, withdrawn: '2023-01' });
    expect(served.withdrawals).toEqual(
      hrk.map((row) => ({ entity: row.Entity, name: row.Currency, withdrawn: row.WithdrawalDate })),
    );
    expect(served.withdrawals).toEqual([
      { entity: 'CROATIA', name: 'Croatian Kuna', withdrawn: '2015-06' },
      { entity: 'CROATIA', name: 'Kuna', withdrawn: '2023-01' },
    ]);
  });

  it('places XNYS in America/New_York and XTKS in Asia/Tokyo', async () => {
    const { data } = await call(getVenues);
    expect(data.find((row) => row.mic === 'XNYS')).toMatchObject({
      time_zone: 'America/New_York',
      time_zone_exact: true,
    });
    expect(data.find((row) => row.mic === 'XTKS')).toMatchObject({
      time_zone: 'Asia/Tokyo',
      time_zone_exact: true,
    });
    // Boston has no zone of its own: it gets the zone most US venues are matched to, marked inexact.
    const mics = await csv('mic/ISO10383_MIC.csv');
    const boston = mics.find((row) => row.CITY === 'BOSTON' && row['ISO COUNTRY CODE (ISO 3166)'] === 'US')!;
    expect(data.find((row) => row.mic === boston.MIC)).toMatchObject({
      time_zone: 'America/New_York',
      time_zone_exact: false,
    });
  });

  it('answers invalid_parameter for a well-formed unknown code and [] for a known code without data', async () => {
    for (const [fn, country] of [
      [getSeriesCatalogue, 'ZZ'],
      [getVenues, 'QQ'],
    ] as const) {
      const error = await call(fn, { country }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ code: 'invalid_parameter' });
    }
    expect((await call(getSeriesCatalogue, { country: 'DE' })).data).toEqual([]);
  });

  it('filters venues on ZZ, the code the MIC list uses for venues of no country', async () => {
    const mics = await csv('mic/ISO10383_MIC.csv');
    const zz = mics.filter((row) => row['ISO COUNTRY CODE (ISO 3166)'] === 'ZZ').map((row) => row.MIC!);
    expect(zz).toEqual(expect.arrayContaining(['XOFF', 'XXXX']));
    const { data, meta } = await call(getVenues, { country: 'ZZ' });
    expect(data.map((row) => row.mic)).toEqual(zz.sort());
    expect(meta.filters).toEqual({ country: 'ZZ' });
    expect(data.find((row) => row.mic === 'XOFF')).toMatchObject({
      country: 'ZZ',
      time_zone: null,
      time_zone_exact: false,
      currencies: [],
    });
  });

  it('shows the latest ECB rate of eurofxref.csv in the series catalogue', async () => {
    const [header, first] = readFileSync(join(SHARED_DATA, 'ecb/eurofxref.csv'), 'utf8').split(/\r?\n/);
    const columns = header!.split(',').map((c) => c.trim());
    const values = first!.split(',').map((v) => v.trim());
    const date = new Date(`${values[0]} UTC`).toISOString().slice(0, 10);
    const { data } = await call(getSeriesCatalogue, { currency: 'USD' });
    expect(data.map((row) => row.key)).toEqual(['ecb.USD']);
    expect(data[0]!.latest).toMatchObject({ period: date, value: Number(values[columns.indexOf('USD')]) });
  });

  it('marks every sector with data stale on the fixture clock', async () => {
    const { data } = await getSectors(context(), { slug: null, query: {}, keyedParams: [] });
    for (const sector of data as Rows) {
      expect(sector.coverage).toBe(sector.last_observed_at === null ? 'none' : 'stale');
    }
  });

  it('lists the research notes newest first', async () => {
    const { data } = await call(getResearch);
    const dates = data.map((row) => row.published_at as string);
    expect(dates.length).toBeGreaterThan(0);
    expect(dates).toEqual([...dates].sort().reverse());
  });

  it('never puts the licensed sample source in any payload data, for any filter value', async () => {
    const requests = (await listStaticRequests(db)).filter((r) => OWN_ROUTES.includes(r.route.id));
    const calls = requests.flatMap((request: StaticRequest) =>
      [request.query, ...request.aliases].map((query) => ({
        id: request.route.id,
        query: parsedQuery(query),
      })),
    );
    // Four at a time: the snapshot's connection pool holds four.
    for (let i = 0; i < calls.length; i += 4) {
      await Promise.all(
        calls.slice(i, i + 4).map(async ({ id, query }) => {
          const payload = await PAYLOADS[id](context(), { slug: null, query, keyedParams: [] });
          for (const item of payload.data as Rows) {
            if (id === 'sources' && item.id === 'northwind') expect(item.redistributable).toBe(false);
            else expect(JSON.stringify(item)).not.toMatch(/northwind/i);
          }
          expect(JSON.stringify(payload.meta ?? {})).not.toMatch(/northwind/i);
        }),
      );
    }
    // Countries are pre-rendered for the series and venues filters, regions for two routes.
    expect(calls.length).toBeGreaterThan(2 * 249);
  });
});
