/**
 * The public status and reference routes of the route table: endpoint 1 (service status), 6
 * (research findings), 7 (sources and their licences), 10 (sectors) and 12-14 (countries,
 * currencies, venues); docs/api/reference-and-catalog.md is their long form. Short descriptions:
 * the payloads are lists.
 */
import { LATEST_MAX_AGE, REFERENCE_MAX_AGE, type RouteDefinition } from './route-definition.ts';

/** Endpoint 1. */
export const STATUS_ROUTE: RouteDefinition = {
  id: 'status',
  number: 1,
  path: '/api/v1/status',
  summary: 'Service and data freshness status',
  description:
    'Snapshot in service, and per source its last period, last observation time, cadence, next release due and staleness; on an instance following a bucket, how far behind its commit log it is (replica).',
  access: { kind: 'public' },
  query: [],
  maxAge: 60,
  prerender: 'filters',
};

/** Endpoint 6. */
export const RESEARCH_ROUTE: RouteDefinition = {
  id: 'research',
  number: 6,
  path: '/api/v1/research',
  summary: 'Published research findings',
  description: 'Findings, newest first, with the series they are about.',
  access: { kind: 'public' },
  query: [],
  maxAge: REFERENCE_MAX_AGE,
  prerender: 'filters',
};

/** Endpoint 7. */
export const SOURCES_ROUTE: RouteDefinition = {
  id: 'sources',
  number: 7,
  path: '/api/v1/sources',
  summary: 'Source catalog with licences and rights classification',
  description:
    'Every source with its licence, rights class, whether it is redistributable, and the attribution to show.',
  access: { kind: 'public' },
  query: [],
  maxAge: REFERENCE_MAX_AGE,
  prerender: 'filters',
};

/** Endpoint 10. */
export const SECTORS_ROUTE: RouteDefinition = {
  id: 'sectors',
  number: 10,
  path: '/api/v1/sectors',
  summary: 'Sectors with measured coverage status and live counts',
  description:
    'Per sector the number of series and markets, how many are fresh, and a coverage status measured from the data.',
  access: { kind: 'public' },
  query: [],
  maxAge: LATEST_MAX_AGE,
  prerender: 'filters',
};

/** Endpoints 12, 13 and 14, in the order of the route table. */
export const REFERENCE_ROUTES: readonly RouteDefinition[] = [
  {
    id: 'countries',
    number: 12,
    path: '/api/v1/reference/countries',
    summary: 'Countries with UN M49 region, ISO 4217 currency, IANA time zones and coverage',
    description:
      'ISO 3166-1 countries with their M49 classification, currencies, time zones and how much data covers them; filter by region.',
    access: { kind: 'public' },
    query: ['region'],
    maxAge: REFERENCE_MAX_AGE,
    prerender: 'filters',
  },
  {
    id: 'currencies',
    number: 13,
    path: '/api/v1/reference/currencies',
    summary: 'ISO 4217 currencies with minor units',
    description: 'Current and withdrawn ISO 4217 currencies and funds with numeric code and minor units.',
    access: { kind: 'public' },
    query: [],
    maxAge: REFERENCE_MAX_AGE,
    prerender: 'filters',
  },
  {
    id: 'venues',
    number: 14,
    path: '/api/v1/reference/venues',
    summary: 'Trading venues with city, time zone and currencies',
    description:
      'ISO 10383 market identifier codes with city, time zone and the currencies of their country; filter by country.',
    access: { kind: 'public' },
    query: ['country'],
    maxAge: REFERENCE_MAX_AGE,
    prerender: 'filters',
  },
];
