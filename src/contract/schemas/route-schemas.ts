import type { RouteId } from '../routes.ts';
import { ALIGNED_BODY } from './aligned.ts';
import { BULK_DATA, BULK_META, BULK_SNAPSHOT_DATA, BULK_SNAPSHOT_META } from './bulk.ts';
import { BULK_FULL_DATA, BULK_FULL_META } from './bulk-full.ts';
import {
  RESEARCH_DATA,
  SECTORS_DATA,
  SECTORS_META,
  SERIES_DATA,
  SERIES_META,
  SOURCES_DATA,
} from './catalog.ts';
import { CHANGES_BODY } from './changes.ts';
import { COT_COMPONENTS, COT_MARKET_BODY, COT_SUMMARY_DATA, COT_SUMMARY_META } from './cot.ts';
import { COT_REPORTS_BODY } from './cot-reports.ts';
import { createEnvelope, ENVELOPE_COMPONENTS } from './envelope.ts';
import { EVENTS_BODY } from './events.ts';
import { FX_ECB_DATA, FX_ECB_META } from './fx.ts';
import type { JsonSchema } from './json-schema.ts';
import { MACRO_LATEST_DATA } from './macro.ts';
import { OBSERVATION_COMPONENTS } from './observations.ts';
import {
  COUNTRIES_DATA,
  CURRENCIES_DATA,
  CURRENCIES_META,
  FILTERED_LIST_META,
  REFERENCE_COMPONENTS,
  VENUES_DATA,
} from './reference.ts';
import { RELEASES_DATA, RELEASES_ICS_BODY, RELEASES_META } from './releases.ts';
import { REVISIONS_BODY, REVISIONS_COMPONENTS } from './revisions.ts';
import { SERIES_HISTORY_DATA, SERIES_HISTORY_META } from './series-history.ts';
import { SERIES_SEARCH_BODY } from './series-search.ts';
import { STATUS_DATA } from './status.ts';
import { SERIES_HISTORY_BODY, TRANSFORM_COMPONENTS } from './transforms.ts';
import { VINTAGE_COMPONENTS, VINTAGE_DATES_BODY } from './vintages.ts';

/** Every named schema the route bodies refer to (`#/components/schemas/<name>`). */
export const SCHEMA_COMPONENTS: Record<string, JsonSchema> = {
  ...ENVELOPE_COMPONENTS,
  ...COT_COMPONENTS,
  ...OBSERVATION_COMPONENTS,
  ...REFERENCE_COMPONENTS,
  ...TRANSFORM_COMPONENTS,
  ...REVISIONS_COMPONENTS,
  ...VINTAGE_COMPONENTS,
};

/**
 * The 200 body of each route, a list holding one schema (openapi.ts refuses more). A body
 * that differs with and without a key (endpoint 3) is one envelope whose `meta` is a tagged union
 * (createTaggedEnvelope), never several untagged bodies: OpenAPI generators type the former as a
 * discriminated union. A new route in the table does not type-check until it has its body here.
 */
export const ROUTE_BODIES: Readonly<Record<RouteId, readonly JsonSchema[]>> = {
  status: [createEnvelope(STATUS_DATA, {})],
  'cot-summary': [createEnvelope(COT_SUMMARY_DATA, COT_SUMMARY_META)],
  'cot-market': [COT_MARKET_BODY],
  'cot-reports': [COT_REPORTS_BODY],
  'macro-latest': [createEnvelope(MACRO_LATEST_DATA, {})],
  'macro-series': [SERIES_HISTORY_BODY],
  research: [createEnvelope(RESEARCH_DATA, {})],
  sources: [createEnvelope(SOURCES_DATA, {})],
  observations: [SERIES_HISTORY_BODY],
  series: [createEnvelope(SERIES_DATA, SERIES_META)],
  'series-history': [createEnvelope(SERIES_HISTORY_DATA, SERIES_HISTORY_META)],
  'series-search': [SERIES_SEARCH_BODY],
  'series-vintagedates': [VINTAGE_DATES_BODY],
  sectors: [createEnvelope(SECTORS_DATA, SECTORS_META)],
  'fx-ecb': [createEnvelope(FX_ECB_DATA, FX_ECB_META)],
  'fx-ecb-series': [createEnvelope(FX_ECB_DATA, FX_ECB_META)],
  countries: [createEnvelope(COUNTRIES_DATA, FILTERED_LIST_META)],
  currencies: [createEnvelope(CURRENCIES_DATA, CURRENCIES_META)],
  venues: [createEnvelope(VENUES_DATA, FILTERED_LIST_META)],
  releases: [createEnvelope(RELEASES_DATA, RELEASES_META)],
  'releases-ics': [RELEASES_ICS_BODY],
  'macro-revisions': [REVISIONS_BODY],
  'observations-revisions': [REVISIONS_BODY],
  'observations-aligned': [ALIGNED_BODY],
  changes: [CHANGES_BODY],
  events: [EVENTS_BODY],
  'bulk-full': [createEnvelope(BULK_FULL_DATA, BULK_FULL_META)],
  bulk: [createEnvelope(BULK_DATA, BULK_META)],
  'bulk-snapshot': [createEnvelope(BULK_SNAPSHOT_DATA, BULK_SNAPSHOT_META)],
};
