import { isEmptyRange, resolvePeriodRange } from '../model/period-range.ts';
import { invalidParameter, notFound } from './errors.ts';
import type { ParamName } from './params.ts';
import { paramSpec, type RouteDefinition } from './routes.ts';

/** The validated parameters of one request. */
export interface RequestParams {
  slug: string | null;
  /** Validated query values (converted: `limit` is a number). */
  query: Partial<Record<ParamName, string | number>>;
  /** Keyed-only parameters the request used (they need a key). */
  keyedParams: ParamName[];
}

/** Maximum query parameters looked at; more is refused before any work. */
const MAX_PARAMS = 20;

/**
 * Validates a request's slug and query string against its route: unknown, repeated, malformed
 * and missing required parameters are `invalid_parameter`, a malformed slug is `not_found`.
 * Whether the values exist in the reference lists is the payload's business.
 */
export function parseRequest(
  route: RouteDefinition,
  slug: string | null,
  search: URLSearchParams,
): RequestParams {
  // A route may take another path value than a slug (its `slug` override: the days of /fx/ecb/{dates}).
  if (slug !== null && !paramSpec(route, 'slug').schema.safeParse(slug).success)
    throw notFound(`${route.path.replace(':slug', slug)}`);
  const names = [...search.keys()];
  if (names.length > MAX_PARAMS) throw invalidParameter('query', `at most ${MAX_PARAMS} parameters`);
  const query: RequestParams['query'] = {};
  const keyedParams: ParamName[] = [];
  for (const name of new Set(names)) {
    if (!(route.query as readonly string[]).includes(name)) {
      const accepted = route.query.length ? `one of: ${route.query.join(', ')}` : 'no query parameters';
      throw invalidParameter(printable(name), `a known parameter (${accepted})`);
    }
    const values = search.getAll(name);
    const spec = paramSpec(route, name as ParamName);
    if (values.length > 1) throw invalidParameter(name, `a single value (${spec.expected})`);
    const parsed = spec.schema.safeParse(values[0]);
    if (!parsed.success) throw invalidParameter(name, spec.expected);
    query[name as ParamName] = parsed.data as string | number;
    if ('keyedOnly' in spec && spec.keyedOnly) keyedParams.push(name as ParamName);
  }
  for (const name of route.query) {
    const spec = paramSpec(route, name);
    if ('required' in spec && spec.required && query[name] === undefined)
      throw invalidParameter(name, `${spec.expected} (required)`);
  }
  checkPeriodRange(query, resolveAliases(query));
  return { slug, query, keyedParams };
}

/** FRED's names of the period range, accepted for ours: stored under ours once validated. */
const PARAM_ALIASES = { observation_start: 'from', observation_end: 'to' } as const;

/**
 * Moves an alias's value to the parameter it stands for (both given is `invalid_parameter`, even
 * when equal: one request, one spelling); returns the name the caller used for each.
 */
function resolveAliases(query: RequestParams['query']): Record<'from' | 'to', string> {
  const used = { from: 'from', to: 'to' };
  for (const [alias, name] of Object.entries(PARAM_ALIASES) as Array<[ParamName, 'from' | 'to']>) {
    if (query[alias] === undefined) continue;
    if (query[name] !== undefined)
      throw invalidParameter(alias, `either ${name} or ${alias} (an alias of ${name}), not both`);
    query[name] = query[alias];
    delete query[alias];
    used[name] = alias;
  }
  return used;
}

/** A range that starts after it ends selects nothing: `invalid_parameter` naming both ends. */
function checkPeriodRange(query: RequestParams['query'], used: Record<'from' | 'to', string>): void {
  const { from, to } = query;
  if (typeof from !== 'string' || typeof to !== 'string') return;
  const range = resolvePeriodRange(from, to);
  if (isEmptyRange(range))
    throw invalidParameter(
      used.from,
      `a period that does not start after ${used.to} ends (${used.from}=${from} starts on ${range.firstDay}, ` +
        `${used.to}=${to} ends on ${range.lastDay})`,
    );
}

/** Parameter names are echoed in messages; keep them short and printable. */
function printable(name: string): string {
  const clean = name.replace(/[^\x20-\x7e]/g, '?');
  return clean.length > 40 ? `${clean.slice(0, 40)}…` : clean;
}
