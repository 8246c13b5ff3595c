import { type Success, success } from '../../contract/envelope.ts';
import { API_INDEX_MAX_AGE, API_INDEX_PATH, OPENAPI_PATH } from '../../contract/openapi.ts';
import { documentedPath, ROUTES, type RouteDefinition } from '../../contract/routes.ts';

/** The paths that answer the endpoint list: `/api/v1/` and `/api/v1`. */
export const API_INDEX_PATHS: readonly string[] = [API_INDEX_PATH, `${API_INDEX_PATH}/`];

/** Where the build writes the endpoint list (relative to dist/). */
export const API_INDEX_FILE = 'api/v1/index.json';

export { API_INDEX_MAX_AGE };

/** One endpoint of the list. */
export interface ApiIndexEntry {
  /** The path, `{slug}` marking the path parameter as in OpenAPI. */
  path: string;
  method: 'GET';
  summary: string;
  /** `public`, `public-or-scope` (a key unlocks more) or `scope` (a key is needed). */
  access: RouteDefinition['access']['kind'];
  /** The scope a key needs for the keyed view, or null for public endpoints. */
  scope: string | null;
  /** Query parameters it accepts. */
  query: string[];
  /** This endpoint in the OpenAPI document (a JSON pointer as URI fragment). */
  openapi: string;
  /** Its section of the HTML reference. */
  documentation: string;
}

/** JSON pointer escaping (RFC 6901) of a path used as a key of `paths`. */
function pointer(path: string): string {
  return encodeURIComponent(path.replace(/~/g, '~0').replace(/\//g, '~1'));
}

/** The endpoint list, generated from the route table: one entry per route, in table order. */
export function listApiEndpoints(): ApiIndexEntry[] {
  return ROUTES.map((route) => {
    const path = documentedPath(route);
    return {
      path,
      method: 'GET' as const,
      summary: route.summary,
      access: route.access.kind,
      scope: route.access.kind === 'public' ? null : route.access.scope,
      query: [...route.query],
      openapi: `${OPENAPI_PATH}#/paths/${pointer(path)}/get`,
      documentation: `/docs/api/#${route.id}`,
    };
  });
}

/**
 * The body of `GET /api/v1/`: the endpoints in the contract's success envelope, with links to the
 * OpenAPI document and the HTML reference in `meta`. The server and the static build share it.
 */
export function createApiIndex(snapshot: string, generatedAt: string): Success<ApiIndexEntry[]> {
  return success(
    {
      data: listApiEndpoints(),
      meta: { openapi: OPENAPI_PATH, documentation: '/docs/api/' },
    },
    snapshot,
    generatedAt,
  );
}
