import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { parse as parseYaml } from 'yaml';
import { openDuckDb, readCsvFile } from '../../../src/db/duckdb.ts';
import { REPO_ROOT, SAMPLE_DATA } from '../../helpers/paths.ts';

/** How many points each chart of the site must plot, read from data/sample and the catalog. */
export interface ChartExpectations {
  /** Per market slug: report type -> weekly reports in the sample file. */
  markets: Map<string, Map<string, number>>;
  /** Per macro slug: periods with a value in any BLS vintage. */
  macro: Map<string, number>;
  /** Per macro slug: periods whose value differs between the BLS vintages. */
  macroRevised: Map<string, number>;
  /** Per currency: ECB reference dates with a rate. */
  fx: Map<string, number>;
  /** Slugs and keys of catalog series of sources that may not be redistributed. */
  privateSeries: string[];
}

/** Categories the net-positioning chart draws per report type (all but total reportable). */
export const CHARTED_CATEGORIES: Readonly<Record<string, number>> = {
  legacy: 3, // noncommercial, commercial, nonreportable
  disaggregated: 5, // producer/merchant, swap dealers, managed money, other reportable, nonreportable
  tff: 5, // dealer, asset manager, leveraged funds, other reportable, nonreportable
};

interface Catalog {
  sources: Array<{ id: string; rights: string }>;
  series: Array<{ key: string; slug: string; source: string; macro?: boolean }>;
  markets: Array<{ slug: string; code: string; report_types: string[] }>;
}

const COT_FILES: Record<string, { file: string; code: string; date: string }> = {
  legacy: {
    file: 'cftc/legacy_futures_only_sample.txt',
    code: 'CFTC Contract Market Code',
    date: 'As of Date in Form YYYY-MM-DD',
  },
  tff: {
    file: 'cftc/tff_futures_only_sample.txt',
    code: 'CFTC_Contract_Market_Code',
    date: 'Report_Date_as_YYYY-MM-DD',
  },
};

const BLS_VINTAGES = [
  'bls/bls_api_v2_sample_vintage_2026-01-09.json',
  'bls/bls_api_v2_sample_vintage_2026-02-06.json',
];

/** Reads the sample files and the catalog and counts what every chart must show. */
export async function readChartExpectations(): Promise<ChartExpectations> {
  const catalog = parseYaml(readFileSync(join(REPO_ROOT, 'data/catalog/catalog.yaml'), 'utf8')) as Catalog;
  const duck = await openDuckDb();
  const connection = await duck.connect();
  const csv = async (file: string) =>
    (await readCsvFile(connection, join(SAMPLE_DATA, file))).map((row) => row.values);
  try {
    const dates = new Map<string, Map<string, Set<string>>>();
    for (const [type, layout] of Object.entries(COT_FILES)) {
      const byCode = new Map<string, Set<string>>();
      for (const row of await csv(layout.file)) {
        const code = row[layout.code]!.trim();
        byCode.set(code, (byCode.get(code) ?? new Set()).add(row[layout.date]!));
      }
      dates.set(type, byCode);
    }
    // In the catalog's order of report types: the first with data also gives the open interest.
    const markets = new Map<string, Map<string, number>>();
    for (const market of catalog.markets) {
      for (const type of market.report_types) {
        const count = dates.get(type)?.get(market.code)?.size ?? 0;
        if (count > 0) markets.set(market.slug, (markets.get(market.slug) ?? new Map()).set(type, count));
      }
    }
    const fx = new Map<string, number>();
    for (const row of await csv('ecb/eurofxref-hist.csv')) {
      for (const [currency, rate] of Object.entries(row)) {
        if (currency === 'Date' || !/^[A-Z]{3}$/.test(currency) || rate === null || rate === 'N/A') continue;
        fx.set(currency, (fx.get(currency) ?? 0) + 1);
      }
    }
    for (const currency of readDailyCurrencies()) fx.set(currency, (fx.get(currency) ?? 0) + 1);
    return { markets, ...countBlsPeriods(catalog), fx, privateSeries: listPrivateSeries(catalog) };
  } finally {
    connection.closeSync();
    duck.closeSync();
  }
}

/** The currencies quoted in the daily XML (a date the CSV does not hold). */
function readDailyCurrencies(): string[] {
  const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(
    readFileSync(join(SAMPLE_DATA, 'ecb/eurofxref-daily.xml'), 'utf8'),
  );
  const cubes = xml['gesmes:Envelope'].Cube.Cube.Cube as Array<{ currency: string }>;
  return cubes.map((cube) => cube.currency);
}

function countBlsPeriods(catalog: Catalog) {
  const values = new Map<string, Map<string, Set<number>>>();
  for (const file of BLS_VINTAGES) {
    const body = JSON.parse(readFileSync(join(SAMPLE_DATA, file), 'utf8'));
    for (const series of body.Results.series as Array<{
      seriesID: string;
      data: Array<Record<string, string>>;
    }>) {
      const periods = values.get(`bls.${series.seriesID}`) ?? new Map<string, Set<number>>();
      values.set(`bls.${series.seriesID}`, periods);
      for (const row of series.data) {
        if (!/^M(0[1-9]|1[0-2])$/.test(row.period!)) continue;
        const period = `${row.year}-${row.period}`;
        periods.set(period, (periods.get(period) ?? new Set()).add(Number(row.value)));
      }
    }
  }
  const macro = new Map<string, number>();
  const macroRevised = new Map<string, number>();
  for (const series of catalog.series) {
    const periods = values.get(series.key);
    if (!series.macro || !periods) continue;
    macro.set(series.slug, periods.size);
    macroRevised.set(series.slug, [...periods.values()].filter((distinct) => distinct.size > 1).length);
  }
  return { macro, macroRevised };
}

function listPrivateSeries(catalog: Catalog): string[] {
  const open = new Set(
    catalog.sources
      .filter((s) => s.rights === 'public_domain' || s.rights === 'open_licence')
      .map((s) => s.id),
  );
  return catalog.series.filter((s) => !open.has(s.source)).flatMap((s) => [s.key, s.slug]);
}
