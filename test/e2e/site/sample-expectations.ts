import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { parse as parseYaml } from 'yaml';
import { openDuckDb, readCsvFile } from '../../../src/db/duckdb.ts';
import { LICENSED_FIXTURE, REPO_ROOT, SAMPLE_DATA } from '../../helpers/paths.ts';

/** How many points each chart of the site must plot, read from data/sample and the catalogs. */
export interface ChartExpectations {
  /** Per market slug: report type -> weekly reports in the sample files. */
  markets: Map<string, Map<string, number>>;
  /** Per macro slug: periods with a value in any shipped file. */
  macro: Map<string, number>;
  /** Per macro slug: periods with more than one distinct value (revisions). */
  macroRevised: Map<string, number>;
  /** Per currency quoted on the newest ECB date (the FX page charts those): reference dates with a rate. */
  fx: Map<string, number>;
  /** Slugs and keys of catalog series of sources that may not be redistributed. */
  privateSeries: string[];
}

/** The site thins a chart to at most this many points per line: FX_CHART_POINTS of src/site/data/fx-page.ts. */
export const FX_CHART_MAX_POINTS = 200;
/** The line charts' default cap (src/site/charts/line-chart.ts), which the macro pages use. */
export const MACRO_CHART_MAX_POINTS = 400;

/** A macro page's table of revised periods shows the newest this many: REVISED_ROWS of src/site/data/macro-pages.ts. */
export const REVISED_TABLE_ROWS = 24;

/** Categories the net-positioning chart draws per report type (all but total reportable). */
export const CHARTED_CATEGORIES: Readonly<Record<string, number>> = {
  legacy: 3, // noncommercial, commercial, nonreportable
  disaggregated: 5, // producer/merchant, swap dealers, managed money, other reportable, nonreportable
  tff: 5, // dealer, asset manager, leveraged funds, other reportable, nonreportable
};

/** The catalog tables the site tests use. */
export interface Catalog {
  sources: Array<{ id: string; rights: string }>;
  series: Array<{ key: string; slug: string; source: string; macro?: boolean }>;
  markets: Array<{ slug: string; code: string; report_types: string[] }>;
}

/** One step of data/sample/pipeline.json. */
interface Step {
  source: string;
  files: string[];
  series?: string;
}

const COT_COLUMNS = {
  legacy: { code: 'CFTC Contract Market Code', date: 'As of Date in Form YYYY-MM-DD' },
  other: { code: 'CFTC_Contract_Market_Code', date: 'Report_Date_as_YYYY-MM-DD' },
};

const readYaml = (path: string) => parseYaml(readFileSync(path, 'utf8')) as Catalog;

/** The project's catalog merged with the test-only licensed vendor's (as the site tests ingest them). */
export function readCatalogs(): Catalog {
  const [main, licensed] = [
    readYaml(join(REPO_ROOT, 'data/catalog/catalog.yaml')),
    readYaml(join(LICENSED_FIXTURE, 'catalog.yaml')),
  ];
  return {
    sources: [...main.sources, ...licensed.sources],
    series: [...main.series, ...licensed.series],
    markets: [...main.markets, ...licensed.markets],
  };
}

/** The sample pipeline's steps. */
function readSteps(): Step[] {
  return JSON.parse(readFileSync(join(SAMPLE_DATA, 'pipeline.json'), 'utf8')) as Step[];
}

/** Reads the sample files and the catalogs and counts what every chart must show. */
export async function readChartExpectations(): Promise<ChartExpectations> {
  const catalog = readCatalogs();
  const steps = readSteps();
  const duck = await openDuckDb();
  const connection = await duck.connect();
  const csv = async (file: string) =>
    (await readCsvFile(connection, join(SAMPLE_DATA, file))).map((row) => row.values);
  try {
    const dates = new Map<string, Map<string, Set<string>>>();
    for (const file of steps.filter((s) => s.source === 'cftc').flatMap((s) => s.files)) {
      const type = /^cftc\/(legacy|tff|disaggregated)_/.exec(file)![1]!;
      const columns = type === 'legacy' ? COT_COLUMNS.legacy : COT_COLUMNS.other;
      const byCode = dates.get(type) ?? new Map<string, Set<string>>();
      for (const row of await csv(file)) {
        const code = row[columns.code]!.trim();
        byCode.set(code, (byCode.get(code) ?? new Set()).add(row[columns.date]!));
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
    const fxDates = new Map<string, Set<string>>();
    const addRate = (currency: string, date: string) =>
      fxDates.set(currency, (fxDates.get(currency) ?? new Set()).add(date));
    for (const file of steps.filter((s) => s.source === 'ecb').flatMap((s) => s.files)) {
      if (file.endsWith('.xml')) {
        const daily = readDailyRates(file);
        for (const currency of daily.currencies) addRate(currency, daily.date);
        continue;
      }
      for (const row of await csv(file)) {
        for (const [currency, rate] of Object.entries(row)) {
          if (!/^[A-Z]{3}$/.test(currency) || rate === null || rate === 'N/A') continue;
          addRate(currency, row.Date!);
        }
      }
    }
    const newest = [...fxDates.values()]
      .flatMap((days) => [...days])
      .sort()
      .at(-1);
    const fx = new Map(
      [...fxDates].filter(([, days]) => days.has(newest!)).map(([currency, days]) => [currency, days.size]),
    );
    const values = await readMacroValues(steps, csv);
    return { markets, ...countMacroPeriods(catalog, values), fx, privateSeries: listPrivateSeries(catalog) };
  } finally {
    connection.closeSync();
    duck.closeSync();
  }
}

/** The date and currencies of an ECB daily XML. */
function readDailyRates(file: string): { date: string; currencies: string[] } {
  const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(
    readFileSync(join(SAMPLE_DATA, file), 'utf8'),
  );
  const day = xml['gesmes:Envelope'].Cube.Cube as { time: string; Cube: Array<{ currency: string }> };
  return { date: day.time, currencies: day.Cube.map((cube) => cube.currency) };
}

type Values = Map<string, Map<string, Set<number>>>;

/** Every (series, period) value of the BLS and FRED files, read from each file's own format. */
async function readMacroValues(
  steps: Step[],
  csv: (file: string) => Promise<Array<Record<string, string | null>>>,
): Promise<Values> {
  const values: Values = new Map();
  const add = (key: string, period: string, value: number) => {
    const periods = values.get(key) ?? new Map<string, Set<number>>();
    values.set(key, periods.set(period, (periods.get(period) ?? new Set()).add(value)));
  };
  for (const step of steps.filter((s) => s.source === 'bls' || s.source === 'fred')) {
    for (const file of step.files) {
      if (step.source === 'fred') {
        for (const row of await csv(file)) {
          const [date, value] = Object.values(row);
          if (value) add(step.series!, date!.slice(0, 7), Number(value));
        }
      } else if (file.endsWith('.csv')) {
        // datahub's CPI-U CSV: Date (first of the month), Index.
        for (const row of await csv(file)) add('bls.CUUR0000SA0', row.Date!.slice(0, 7), Number(row.Index));
      } else {
        const body = JSON.parse(readFileSync(join(SAMPLE_DATA, file), 'utf8'));
        if (body.records) {
          for (const record of body.records as Array<{ observation_month: string; value_thousands: number }>)
            add(`bls.${body.series_id}.change`, record.observation_month, record.value_thousands);
          continue;
        }
        for (const series of body.Results.series as Array<{
          seriesID: string;
          data: Array<Record<string, string>>;
        }>) {
          for (const row of series.data) {
            if (!/^M(0[1-9]|1[0-2])$/.test(row.period!)) continue;
            add(`bls.${series.seriesID}`, `${row.year}-${row.period!.slice(1)}`, Number(row.value));
          }
        }
      }
    }
  }
  return values;
}

function countMacroPeriods(catalog: Catalog, values: Values) {
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
