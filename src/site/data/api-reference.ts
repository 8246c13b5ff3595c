import { changesExampleSince } from '../../api/v1/changes.ts';
import { renderPayload } from '../../api/v1/render.ts';
import { DEFAULT_RATE_LIMIT } from '../../contract/key-rate-limits.ts';
import { PARAMS, type ParamName, type ParamSpec } from '../../contract/params.ts';
import { parseRequest } from '../../contract/parse-request.ts';
import { documentedPath, paramSpec, ROUTES, type RouteDefinition } from '../../contract/routes.ts';
import { renderInlineMarkdown, renderMarkdown } from '../markdown.ts';
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

/**
 * The reference page's introduction, in Markdown (rendered, so that code spans and the spaces
 * around links come out as written): `lead` the envelope and the key header, `body` the
 * machine-readable documents and how the examples name the host.
 */
export function apiReferenceIntro(snapshot: string): { lead: string; body: string } {
  const lead = `Base path \`/api/v1/\`. Every success is \`{"data": …, "meta": {api_version, snapshot, generated_at, count, …}}\`,
every error \`{"error": {code, message, request_id}}\`. Keyed requests send
\`Authorization: Bearer <key>\`. The examples below are real responses of snapshot \`${snapshot}\`.`;
  const body = `Machine-readable: the OpenAPI 3.1 document [/api/v1/openapi.json](/api/v1/openapi.json)
(for client generators and API tools; each operation's \`x-endpoint-number\` is the number below), and
the endpoint list [/api/v1/](/api/v1/). Whole datasets as Parquet and gzipped CSV: [Bulk downloads](/bulk/).

The \`curl\` lines call the host in \`$MMDS_URL\`: this page cannot know the address it is served from,
so set it once to that address (for \`npm start\`, the one the server prints), and \`MMDS_KEY\` to your
key for keyed requests:`;
  return { lead: renderInlineMarkdown(lead), body: renderMarkdown(body) };
}

/** Items kept of each array in an example response. */
const EXAMPLE_ITEMS = 3;
const EXAMPLE_TEXT = 200;

/** One parameter of an endpoint as the reference lists it (`…Html`: Markdown rendered). */
export interface ParamDoc {
  name: string;
  where: 'path' | 'query';
  expectedHtml: string;
  descriptionHtml: string;
  /** The "Needs a key" column: `no`, or which key the parameter needs. */
  key: string;
  required: boolean;
}

/** One endpoint of the API reference (`…Html`: the route table's Markdown, rendered). */
export interface EndpointDoc {
  id: string;
  /** The endpoint's number, the one README, docs/api and OpenAPI's x-endpoint-number use. */
  number: number;
  path: string;
  summary: string;
  descriptionHtml: string;
  accessHtml: string;
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

/** Who may call the endpoint, in Markdown. */
function describeAccess(route: RouteDefinition): string {
  if (route.access.kind === 'public') return 'Public: no key needed.';
  if (route.id === 'changes' && route.access.kind === 'public-or-scope')
    return `Public without a key (redistributable sources only); a key with scope \`${route.access.scope}\` also lists the series of licensed sources.`;
  if (route.access.kind === 'public-or-scope')
    return `Public without a key (the recent window); a key with scope \`${route.access.scope}\` unlocks the full history and the keyed-only parameters.`;
  return `Needs a key with scope \`${route.access.scope}\` (\`Authorization: Bearer <key>\`).`;
}

/**
 * Whether a parameter needs a key: on a keyed endpoint every parameter does (the request does);
 * on a public one only those marked keyedOnly (by the route's own spec: `format` is public on
 * the change feed).
 */
function describeKey(route: RouteDefinition, keyedOnly: boolean): string {
  if (route.access.kind === 'scope' || (route.access.kind === 'public-or-scope' && keyedOnly))
    return `yes (${route.access.scope})`;
  return 'no';
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
  // The search needs a text: words of the macro series' name would do, but a plain word shows the ranking.
  if (route.id === 'series-search') return { slug: null, query: { search_text: 'nonfarm', limit: '3' } };
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
  // In the order of their numbers (a stable sort: /releases before /releases.ics, both 19).
  for (const route of [...ROUTES].sort((a, b) => a.number - b.number)) {
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
      descriptionHtml: renderMarkdown(`${route.summary}. ${route.description}`),
      accessHtml: renderInlineMarkdown(describeAccess(route)),
      rateLimit: keyed
        ? `The key's own limit (default ${DEFAULT_RATE_LIMIT} requests per minute).`
        : `${ANONYMOUS_RATE_LIMIT} requests per minute per client IP without a key; with a key, the key's own limit (default ${DEFAULT_RATE_LIMIT}).`,
      cache: describeCache(route),
      params: [
        ...(route.path.includes(':slug')
          ? [{ name: 'slug', where: 'path' as const, ...describeParam(route, 'slug') }]
          : []),
        ...route.query.map((name) => ({ name, where: 'query' as const, ...describeParam(route, name) })),
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

/** A parameter as the route reads it (its own spec where it has one, else PARAMS). */
function describeParam(route: RouteDefinition, name: ParamName) {
  const spec: ParamSpec = name === 'slug' ? PARAMS.slug : paramSpec(route, name);
  return {
    expectedHtml: renderInlineMarkdown(spec.expected),
    descriptionHtml: renderInlineMarkdown(spec.description),
    key: describeKey(route, spec.keyedOnly === true),
    required: name === 'slug' || spec.required === true,
  };
}
