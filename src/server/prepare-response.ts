import type { RouteDefinition } from '../contract/routes.ts';
import { RATE_LIMIT_FIELDS } from '../rate-limit/headers.ts';
import { MAX_LOGGED_PATH } from './access-log.ts';
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
  const common = [
    ...BASE_FLAT,
    'x-snapshot-id',
    snapshot,
    'vary',
    route.access.kind === 'public-or-scope' ? 'Authorization, Accept-Encoding' : 'Accept-Encoding',
    'cache-control',
    `public, max-age=${route.maxAge}`,
    'etag',
    entry.etag,
  ];
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
    path: (query < 0 ? url : url.slice(0, query)).slice(0, MAX_LOGGED_PATH),
    snapshot,
    entry,
    identity: withBody(entry.body, null),
    gzip: entry.gzip ? withBody(entry.gzip, 'gzip') : null,
    br: entry.br ? withBody(entry.br, 'br') : null,
    notModified: [...common, ...PER_REQUEST],
  };
}
