/**
 * A route's access rule applied to a caller: who an authenticated caller is (Caller, what a key
 * resolves to) and whether it may call a route and gets its keyed view (authorise). Here, in the
 * contract beside the routes' access rules, so that the HTTP server and MCP apply one rule.
 */
import { insufficientScope, unauthorized } from './errors.ts';
import type { RequestParams } from './parse-request.ts';
import { CSV_PATH_SUFFIX, type RouteDefinition } from './routes.ts';

/** An authenticated caller (never the key itself). */
export interface Caller {
  keyId: string;
  org: string;
  scopes: readonly string[];
  rateLimit: number;
}

/**
 * Applies the route's access rule; returns whether the caller gets the keyed view. `csv`: the
 * request came by the `.csv` path, whose implied format=csv the caller never wrote.
 */
export function authorise(
  route: RouteDefinition,
  params: RequestParams,
  caller: Caller | null,
  csv: boolean,
): boolean {
  if (route.access.kind === 'public') return false;
  const scope = route.access.scope;
  const holdsScope = caller?.scopes.includes(scope) ?? false;
  if (route.access.kind === 'scope' || params.keyedParams.length > 0) {
    if (!caller) {
      const [first] = params.keyedParams;
      const what =
        route.access.kind === 'scope'
          ? 'this endpoint'
          : csv && first === 'format'
            ? `the CSV form of this endpoint (${CSV_PATH_SUFFIX})`
            : `parameter ${first}`;
      throw unauthorized(`${what} needs an API key with scope ${scope}: send Authorization: Bearer <key>`);
    }
    if (!holdsScope) throw insufficientScope(scope);
  }
  return holdsScope;
}
