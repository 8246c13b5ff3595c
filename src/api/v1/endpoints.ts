import type { RouteId } from '../../contract/routes.ts';
import { getAlignedObservations } from './aligned.ts';
import { getBulkListing } from './bulk.ts';
import { getBulkFull } from './bulk-full.ts';
import { getResearch, getSources } from './catalog.ts';
import { getChanges } from './changes.ts';
import type { PayloadFunction } from './context.ts';
import { getCotMarketPublic, getCotSummary } from './cot.ts';
import { getCotHistory } from './cot-history.ts';
import { getCotReportsOfDate } from './cot-reports.ts';
import { getEvents } from './events.ts';
import { getEcbRates, getEcbRatesByPath } from './fx.ts';
import { getMacroLatest } from './macro.ts';
import { getMacroHistory } from './macro-history.ts';
import { getObservations } from './observations.ts';
import { getCountries, getCurrencies, getVenues } from './reference.ts';
import { getReleases } from './releases.ts';
import { getMacroRevisions, getObservationRevisions } from './revisions.ts';
import { getSectors } from './sectors.ts';
import { getSeriesCatalogue } from './series.ts';
import { getSeriesHistory } from './series-history.ts';
import { getSeriesSearch } from './series-search.ts';
import { getStatus } from './status.ts';
import { getSeriesVintageDates } from './vintages.ts';

/** The payload function of every route: the one table the build and the server dispatch on. */
export const PAYLOADS: Readonly<Record<RouteId, PayloadFunction>> = {
  status: getStatus,
  'cot-summary': getCotSummary,
  'cot-market': (context, params) =>
    context.keyed ? getCotHistory(context, params) : getCotMarketPublic(context, params),
  'cot-reports': getCotReportsOfDate,
  'macro-latest': getMacroLatest,
  'macro-series': getMacroHistory,
  research: getResearch,
  sources: getSources,
  observations: getObservations,
  series: getSeriesCatalogue,
  'series-history': getSeriesHistory,
  'series-search': getSeriesSearch,
  'series-vintagedates': getSeriesVintageDates,
  sectors: getSectors,
  'fx-ecb': getEcbRates,
  'fx-ecb-series': getEcbRatesByPath,
  countries: getCountries,
  currencies: getCurrencies,
  venues: getVenues,
  releases: getReleases,
  'releases-ics': getReleases,
  'macro-revisions': getMacroRevisions,
  'observations-revisions': getObservationRevisions,
  'observations-aligned': getAlignedObservations,
  changes: getChanges,
  events: getEvents,
  'bulk-full': getBulkFull,
  bulk: getBulkListing,
  'bulk-snapshot': getBulkListing,
};
