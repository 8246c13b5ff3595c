import { getResearch } from '../../api/v1/catalog.ts';
import { getCountries, getCurrencies, getVenues } from '../../api/v1/reference.ts';
import { getSeriesCatalogue } from '../../api/v1/series.ts';
import { formatNumber } from '../format.ts';
import type { StatusData, StatusSource } from '../status-page.ts';
import { EXAMPLE_BASE_URL } from './api-reference.ts';
import type { SectorRow, SourceRow } from './catalog-pages.ts';
import type { FxPage } from './fx-page.ts';
import type { MacroListItem } from './macro-pages.ts';
import type { MarketListItem } from './market-pages.ts';
import { readPublicData, type SiteContext } from './site-context.ts';

/** One figure of what the service holds, linked to where it is shown. */
export interface HoldingCount {
  label: string;
  value: string;
  detail: string;
  href: string;
}

/** The commands of the README's quick start. */
const QUICK_START = [
  'npm install && npm start     # ingest the bundled sample data, publish, build, serve on :4321',
  'npm test                     # lint, type-check and the whole test suite',
];

/** The home page: what the snapshot holds, how to start, and how fresh each source is. */
export interface HomePage {
  holdings: HoldingCount[];
  quickStart: string[];
  firstRequest: string;
  freshness: StatusSource[];
}

/** What the page lists, computed by the other pages' readers (the build computes each once). */
export interface HomeInputs {
  markets: readonly MarketListItem[];
  macro: readonly MacroListItem[];
  fx: FxPage;
  sources: readonly SourceRow[];
  sectors: readonly SectorRow[];
  status: StatusData;
}

async function countPublic(context: SiteContext, payload: Parameters<typeof readPublicData>[1]) {
  return (await readPublicData<unknown[]>(context, payload)).data.length;
}

/** Reads the home page: counts from the same public payloads the API serves, and the status. */
export async function readHomePage(context: SiteContext, inputs: HomeInputs): Promise<HomePage> {
  return {
    holdings: await countHoldings(context, inputs),
    quickStart: QUICK_START,
    firstRequest: `curl -s "${EXAMPLE_BASE_URL}/api/v1/markets/cot"`,
    freshness: inputs.status.sources,
  };
}

async function countHoldings(context: SiteContext, inputs: HomeInputs): Promise<HoldingCount[]> {
  const [series, research, countries, currencies, venues] = await Promise.all([
    countPublic(context, getSeriesCatalogue),
    countPublic(context, getResearch),
    countPublic(context, getCountries),
    countPublic(context, getCurrencies),
    countPublic(context, getVenues),
  ]);
  const marketsWithData = inputs.markets.filter((m) => m.latestDate !== null).length;
  const macroWithData = inputs.macro.filter((m) => m.latestPeriod !== null).length;
  const redistributable = inputs.sources.filter((s) => s.redistributable).length;
  const count = (value: number) => formatNumber(value);
  return [
    {
      label: 'COT markets',
      value: count(marketsWithData),
      detail: `with weekly reports, of ${inputs.markets.length} tracked`,
      href: '/markets/',
    },
    {
      label: 'Macro series',
      value: count(macroWithData),
      detail: `with data and every revision, of ${inputs.macro.length} tracked`,
      href: '/macro/',
    },
    {
      label: 'Euro reference rates',
      value: count(inputs.fx.rates.length),
      detail: inputs.fx.date ? `currencies, latest ${inputs.fx.date}` : 'currencies',
      href: '/fx/',
    },
    {
      label: 'Catalog series',
      value: count(series),
      detail: 'of redistributable sources',
      href: '/docs/api/#series',
    },
    {
      label: 'Sources',
      value: count(inputs.sources.length),
      detail: `${redistributable} redistributable`,
      href: '/sources/',
    },
    {
      label: 'Sectors',
      value: count(inputs.sectors.length),
      detail: 'with measured coverage',
      href: '/sectors/',
    },
    {
      label: 'Research notes',
      value: count(research),
      detail: 'published findings',
      href: '/docs/api/#research',
    },
    {
      label: 'Reference lists',
      value: count(countries + currencies + venues),
      detail: `${countries} countries, ${currencies} currencies, ${venues} venues`,
      href: '/docs/api/#countries',
    },
  ];
}
