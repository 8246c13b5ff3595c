/**
 * What one route of v1 declares (its scopes, access and prerender kinds, the cache lifetimes the
 * families share), apart from the route table (routes.ts and the family files beside it) so that
 * each table can import it without the others.
 */
import type { ParamName, ParamSpec } from './params.ts';

/** The scopes a key can hold (SPEC section 5). */
export const SCOPES = ['cot:history', 'macro:history', 'observations:read', 'bulk:read'] as const;
export type Scope = (typeof SCOPES)[number];

/**
 * The scope of COT reports older than the public window (query/cot.ts PUBLIC_COT_REPORTS): needed
 * besides a route's own scope wherever a route would show such a report (docs/keys.md).
 */
export const COT_HISTORY_SCOPE: Scope = 'cot:history';

/** Seconds a shared cache may keep a "latest" payload (values that change with each release). */
export const LATEST_MAX_AGE = 300;
/** Seconds a shared cache may keep a reference or catalogue list (changes rarely). */
export const REFERENCE_MAX_AGE = 3600;

/** Who may call an endpoint. */
export type Access =
  | { kind: 'public' }
  /** Public payload without a key; the scope unlocks the full history (endpoint 3). */
  | { kind: 'public-or-scope'; scope: Scope }
  | { kind: 'scope'; scope: Scope };

/** What the static build writes for an endpoint. */
export type Prerender =
  /** Not pre-rendered: keyed only. */
  | 'none'
  /** One file, plus one per valid value of each single filter parameter. */
  | 'filters'
  /** One file per slug (and per report type). */
  | 'per-slug'
  /** Written by mmds build from the files it made, not rendered from the snapshot (the bulk listings). */
  | 'build';

/** One endpoint of v1, declared once for the server, the static build, OpenAPI and the tests. */
export interface RouteDefinition {
  id: RouteId;
  /**
   * The endpoint's number: SPEC section 4's 1-14, then the service's additions. The one numbering
   * of the README, docs/api, the API reference page and OpenAPI (`x-endpoint-number`); two routes
   * share one when they are one endpoint in two formats (/releases, /releases.ics).
   */
  number: number;
  /** Path with `:slug` for the path parameter. */
  path: string;
  /**
   * The path parameter's name in OpenAPI and the docs when it is not `slug`: `snapshot` on
   * /api/v1/bulk/{snapshot} (a snapshot id, not a slug; the README's name). See documentedPath.
   */
  pathParam?: 'snapshot' | 'dates';
  summary: string;
  description: string;
  access: Access;
  /** Query parameters accepted (keyed-only ones need a key). */
  query: readonly ParamName[];
  /** Seconds a shared cache may keep the public payload. */
  maxAge: number;
  prerender: Prerender;
  /**
   * Parameters that mean something else on this route than in PARAMS, by the same query name
   * (`currency` on /fx/ecb takes a list). Read them through `paramSpec`.
   */
  params?: Partial<Record<ParamName, ParamSpec>>;
  /**
   * The media type of the 200 when it is not the JSON envelope (`text/calendar`: the payload's
   * rows rendered as iCalendar); errors stay JSON envelopes.
   */
  mediaType?: 'text/calendar';
}

export type RouteId =
  | 'status'
  | 'cot-summary'
  | 'cot-market'
  | 'cot-reports'
  | 'macro-latest'
  | 'macro-series'
  | 'research'
  | 'sources'
  | 'observations'
  | 'series'
  | 'series-history'
  | 'series-search'
  | 'series-vintagedates'
  | 'sectors'
  | 'fx-ecb'
  | 'fx-ecb-series'
  | 'countries'
  | 'currencies'
  | 'venues'
  | 'releases'
  | 'releases-ics'
  | 'macro-revisions'
  | 'observations-revisions'
  | 'changes'
  | 'events'
  | 'observations-aligned'
  | 'bulk-full'
  | 'bulk'
  | 'bulk-snapshot';
