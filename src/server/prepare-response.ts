import { publicCacheControl, varyFor } from '../contract/header-rules.ts';
import type { RouteDefinition } from '../contract/routes.ts';
import { RATE_LIMIT_FIELDS } from '../rate-limit/headers.ts';
import { MAX_LOGGED_PATH } from './access-log.ts';
import type { Representation } from './http-response.ts';
import { BASE_HEADERS } from './response-headers.ts';
import type { StaticEntry } from './static-site.ts';

/** Everything about the answer to one pre-rendered request that does not change per request. */
export interface PreparedResponse {
  /** The path for the log line. */
  path: string;
  snapshot: string;
  entry: StaticEntry;
  /** Flat header lists (`[name, value, ...]`) ending in the PER_REQUEST slots. */
  identity: string[];
  gzip: string[] | null;
  br: string[] | null;
  notModified: string[];
}

/**
 * The fields filled per request, at the end of every prepared list: the request id and the rate
 * limit (names in lower case, as the general path's responses send them).
 */
export const PER_REQUEST: readonly string[] = [
  'x-request-id',
  '',
  ...RATE_LIMIT_FIELDS.flatMap((name) => [name.toLowerCase(), '']),
];
/** Where the request id and the first rate-limit value go, from the start of PER_REQUEST. */
export const REQUEST_ID_SLOT = 1;
export const RATE_LIMIT_SLOT = 3;
const BASE_FLAT = BASE_HEADERS.flat();

/** Computes the header lists of one pre-rendered request, in the order the general path sends them. */
export function prepareResponse(
  url: string,
  entry: StaticEntry,
  route: RouteDefinition,
  snapshot: string,
): PreparedResponse {
  const query = url.indexOf('?');
  const lists = prepareLists(
    commonFields(route, snapshot, publicCacheControl(route.maxAge), entry.etag, null),
    entry,
  );
  return {
    path: (query < 0 ? url : url.slice(0, query)).slice(0, MAX_LOGGED_PATH),
    snapshot,
    entry,
    identity: lists.identity,
    gzip: lists.gzip ?? null,
    br: lists.br ?? null,
    notModified: lists.notModified,
  };
}

/**
 * The fields of a successful answer of a route of the table that do not depend on its body, in
 * the order the general path sets them (dispatch-request.ts, then respondWith).
 */
export function commonFields(
  route: RouteDefinition,
  snapshot: string,
  cacheControl: string,
  etag: string,
  link: string | null | undefined,
): string[] {
  return [
    ...BASE_FLAT,
    'x-snapshot-id',
    snapshot,
    'vary',
    varyFor(route),
    'cache-control',
    cacheControl,
    'etag',
    etag,
    ...(link ? ['link', link] : []),
  ];
}

/** The header lists of one body, each ending in the PER_REQUEST slots. */
export interface PreparedLists {
  identity: string[];
  /** undefined: the representation has no copy in that encoding yet (made on demand). */
  gzip: string[] | null | undefined;
  br: string[] | null | undefined;
  notModified: string[];
}

/** The header lists of a body and its compressed copies (null or undefined where it has none). */
export function prepareLists(
  common: readonly string[],
  entry: Pick<Representation, 'body' | 'gzip' | 'br' | 'contentType'>,
): PreparedLists {
  const withBody = (body: Buffer, encoding: string | null): string[] => [
    ...common,
    'content-type',
    entry.contentType,
    ...(encoding ? ['content-encoding', encoding] : []),
    'content-length',
    String(body.length),
    ...PER_REQUEST,
  ];
  return {
    identity: withBody(entry.body, null),
    gzip: entry.gzip ? withBody(entry.gzip, 'gzip') : entry.gzip,
    br: entry.br ? withBody(entry.br, 'br') : entry.br,
    notModified: [...common, ...PER_REQUEST],
  };
}
