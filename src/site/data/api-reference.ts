import { changesExampleSince } from '../../api/v1/changes.ts';
import { renderPayload } from '../../api/v1/render.ts';
import { PARAMS } from '../../contract/params.ts';
import { parseRequest } from '../../contract/parse-request.ts';
import { documentedPath, ROUTES, type RouteDefinition } from '../../contract/routes.ts';
import { DEFAULT_RATE_LIMIT } from '../../keys/key-record.ts';
import type { SiteContext } from './site-context.ts';

/** Anonymous requests per minute per client IP (the server's default, SPEC section 5). */
export const ANONYMOUS_RATE_LIMIT = 60;

/**
 * The host the examples call. A static page cannot know the host it is served from (and the site
 * runs no script), so the examples read it from a shell variable the reader sets once:
 * `export MMDS_URL=https://<your-host>`. The page says so above the examples.
 */
export const EXAMPLE_BASE_URL = '$MMDS_URL';

/** The line that sets the examples' host, shown with them. */
export const EXAMPLE_BASE_URL_SETUP =
  'export MMDS_URL=https://<your-host>   # the address this site is served from';

/** Items kept of each array in an example response. */
const EXAMPLE_ITEMS = 3;
const EXAMPLE_TEXT = 200;

/** One parameter of an endpoint as the reference lists it. */
export interface ParamDoc {
  name: string;
  where: 'path' | 'query';
  expected: string;
  description: string;
  keyedOnly: boolean;
  required: boolean;
}

/** One endpoint of the API reference. */
export interface EndpointDoc {
  id: string;
  number: number;
  path: string;
  summary: string;
  description: string;
  access: string;
  rateLimit: string;
  cache: string;
  params: ParamDoc[];
  /** The request the example answers, e.g. `/api/v1/markets/cot/corn`. */
  exampleRequest: string | null;
  /** Pretty-printed JSON of the real response, arrays cut to a few items. */
  exampleJson: string | null;
  exampleShortened: boolean;
  /** The example needs a key (keyed-only endpoints): the page does not link to it. */
  keyed: boolean;
  curl: string[];
}

/** Slugs and keys the examples of slug and series endpoints use: ones with data in the snapshot. */
export interface ExampleSubjects {
  market: string | null;
  macroSlug: string | null;
  macroKey: string | null;
}

function describeAccess(route: RouteDefinition): string {
  if (route.access.kind === 'public') return 'Public: no key needed.';
  if (route.id === 'changes' && route.access.kind === 'public-or-scope')
    return `Public without a key (redistributable sources only); a key with scope ${route.access.scope} also lists the series of licensed sources.`;
  if (route.access.kind === 'public-or-scope')
    return `Public without a key (the recent window); a key with scope ${route.access.scope} unlocks the full history and the keyed-only parameters.`;
  return `Needs a key with scope ${route.access.scope} (Authorization: Bearer <key>).`;
}

function describeCache(route: RouteDefinition): string {
  if (route.access.kind === 'scope') return 'private, no-store (keyed responses are never shared).';
  const live = route.id === 'status' ? ' The server computes it on every request.' : '';
  return `public, max-age=${route.maxAge} without a key; private, no-store with one.${live}`;
}

/** Cuts arrays to a few items and long strings to a line, so an example stays readable. */
function shorten(value: unknown, state: { shortened: boolean }): unknown {
  if (Array.isArray(value)) {
    if (value.length > EXAMPLE_ITEMS) state.shortened = true;
    return value.slice(0, EXAMPLE_ITEMS).map((item) => shorten(item, state));
  }
  if (typeof value === 'string' && value.length > EXAMPLE_TEXT) {
    state.shortened = true;
    return `${value.slice(0, EXAMPLE_TEXT)}…`;
  }
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shorten(v, state)]));
  return value;
}

/** The request an endpoint's example shows, or null when the snapshot has nothing to show. */
function chooseExample(
  route: RouteDefinition,
  subjects: ExampleSubjects,
): { slug: string | null; query: Record<string, string> } | null {
  const keyed = route.access.kind === 'scope';
  const limit: Record<string, string> = keyed ? { limit: String(EXAMPLE_ITEMS) } : {};
  if (route.id === 'cot-market') return subjects.market ? { slug: subjects.market, query: {} } : null;
  if (route.id === 'macro-series')
    return subjects.macroSlug ? { slug: subjects.macroSlug, query: limit } : null;
  if (route.id === 'observations')
    return subjects.macroKey ? { slug: null, query: { series: subjects.macroKey, ...limit } } : null;
  // The revisions endpoints show the same macro series (docs/api/revisions.md).
  if (route.id === 'macro-revisions')
    return subjects.macroSlug ? { slug: subjects.macroSlug, query: limit } : null;
  if (route.id === 'observations-revisions')
    return subjects.macroKey ? { slug: null, query: { series: subjects.macroKey, ...limit } } : null;
  // The aligned observations need a calendar (docs/api/aligned.md): the macro series by month.
  if (route.id === 'observations-aligned')
    return subjects.macroKey
      ? { slug: null, query: { series: subjects.macroKey, frequency: 'm', ...limit } }
      : null;
  // A macro series is a catalogued series of a redistributable source: its slug names it here too.
  if (route.id === 'series-history')
    return subjects.macroSlug ? { slug: subjects.macroSlug, query: {} } : null;
  // The bulk listings are written by the build after the pages (src/build/bulk-files.ts); /bulk/ shows them.
  if (route.prerender === 'build') return null;
  // Any other endpoint with a path parameter has no example subject yet.
  if (route.path.includes(':slug')) return null;
  return { slug: null, query: {} };
}

/**
 * Documents every endpoint of the route table with a real response from the snapshot: the
 * public payload the build writes, or for keyed-only endpoints the keyed payload of a series
 * of a redistributable source, computed by the same renderPayload as the server.
 */
export async function readApiReference(
  context: SiteContext,
  subjects: ExampleSubjects,
): Promise<EndpointDoc[]> {
  const docs: EndpointDoc[] = [];
  for (const route of ROUTES) {
    const keyed = route.access.kind === 'scope';
    // The change feed's example asks since the parent snapshot (docs/api/changes.md).
    const example =
      route.id === 'changes'
        ? { slug: null, query: { since: changesExampleSince(context.db) } }
        : chooseExample(route, subjects);
    let exampleRequest: string | null = null;
    let exampleJson: string | null = null;
    const state = { shortened: false };
    if (example) {
      const search = new URLSearchParams(example.query);
      const params = parseRequest(route, example.slug, search);
      const envelope = await renderPayload(context.db, route, params, { now: context.now, keyed });
      exampleRequest = `${route.path.replace(':slug', example.slug ?? '')}${search.size > 0 ? `?${search}` : ''}`;
      exampleJson = JSON.stringify(shorten(envelope, state), null, 2);
    }
    const target = `${EXAMPLE_BASE_URL}${exampleRequest ?? route.path.replace(':slug', '<slug>')}`;
    const auth = '-H "Authorization: Bearer $MMDS_KEY" ';
    const curl = [`curl -s ${keyed ? auth : ''}"${target}"`];
    if (route.access.kind === 'public-or-scope')
      curl.push(`curl -s ${auth}"${target}${route.query.includes('limit') ? '?limit=3' : ''}"`);
    docs.push({
      id: route.id,
      number: route.number,
      path: documentedPath(route),
      summary: route.summary,
      description: route.description,
      access: describeAccess(route),
      rateLimit: keyed
        ? `The key's own limit (default ${DEFAULT_RATE_LIMIT} requests per minute).`
        : `${ANONYMOUS_RATE_LIMIT} requests per minute per client IP without a key; with a key, the key's own limit (default ${DEFAULT_RATE_LIMIT}).`,
      cache: describeCache(route),
      params: [
        ...(route.path.includes(':slug')
          ? [{ name: 'slug', where: 'path' as const, ...describeParam('slug') }]
          : []),
        ...route.query.map((name) => ({ name, where: 'query' as const, ...describeParam(name) })),
      ],
      exampleRequest,
      exampleJson,
      exampleShortened: state.shortened,
      keyed,
      curl,
    });
  }
  return docs;
}

function describeParam(name: keyof typeof PARAMS) {
  const spec = PARAMS[name];
  return {
    expected: spec.expected,
    description: spec.description,
    keyedOnly: 'keyedOnly' in spec && spec.keyedOnly === true,
    required: name === 'slug' || ('required' in spec && spec.required === true),
  };
}
