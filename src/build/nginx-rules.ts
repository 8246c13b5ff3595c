/**
 * The rules of the generated nginx configuration (nginx-conf.ts): which pre-rendered file answers
 * which request, as nginx map entries and regex alternations that fit nginx's limits, and the
 * quoting of what goes into them.
 */

import { varyFor } from '../contract/header-rules.ts';
import { CSV_PATH_SUFFIX, ROUTES } from '../contract/routes.ts';
import { BULK_FULL_FILE_PREFIX } from '../contract/schemas/bulk-full.ts';
import { SERVED_COT_REPORT_TYPES } from '../model/records.ts';
import type { StaticRoute } from './build-manifest.ts';
import type { StaticError } from './static-errors.ts';

/** Every report type endpoint 3 serves, as a regex alternation. */
const REPORT_TYPES = SERVED_COT_REPORT_TYPES.join('|');

/** Characters a client sends unescaped in a query value; anything else goes to mmds serve. */
const PLAIN_VALUE = '[A-Za-z0-9._~-]*';

/** The lines of a location that hands the request to mmds serve (upstream mmds_serve, keep-alive). */
export const PROXY_TO_SERVE = [
  '        proxy_pass http://mmds_serve;',
  '        proxy_http_version 1.1;',
  '        proxy_set_header Connection "";',
  '        proxy_set_header Host $host;',
  '        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;',
  '        proxy_set_header X-Forwarded-Proto $scheme;',
];

/** The map key of a pre-rendered request: its path and query exactly as a client writes them. */
export function requestKey(route: StaticRoute): string {
  const query = Object.entries(route.query)
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`)
    .join('&');
  return query ? `${route.path}?${query}` : route.path;
}

/**
 * The regular expressions after the exact entries, in order: a filter value with no file is the
 * 400 body; any other request to a known endpoint goes to mmds serve; an unknown market or path
 * is the 404 body.
 */
export function renderRules(
  routes: readonly StaticRoute[],
  errorFiles: ReadonlyMap<string, StaticError>,
  notFound: StaticError,
): string[] {
  const rules: string[] = [];
  const errorFor = (name: string) =>
    [...errorFiles.keys()].find((file) => file.endsWith(`/invalid_${name}.json`));
  const paths = new Map<string, Set<string>>();
  for (const route of routes) {
    const names = paths.get(route.path) ?? new Set<string>();
    for (const name of Object.keys(route.query)) names.add(name);
    paths.set(route.path, names);
  }
  const marketSlugs: string[] = [];
  for (const [path, names] of paths) {
    const market = /^\/api\/v1\/markets\/cot\/([a-z0-9-]+)$/.exec(path)?.[1];
    if (market) marketSlugs.push(market);
    for (const name of names) {
      const file = errorFor(name);
      if (!file) continue;
      // A report type the market lacks gets mmds serve's message naming the market's types.
      const value = name === 'report_type' ? `(?!(${REPORT_TYPES})$)${PLAIN_VALUE}` : PLAIN_VALUE;
      if (!market) rules.push(rule(`^${escapeRegex(path)}\\?${escapeRegex(name)}=${value}$`, file));
    }
  }
  const reportTypeError = errorFor('report_type');
  if (marketSlugs.length > 0 && reportTypeError) {
    // nginx refuses a configuration token longer than 4 KB: a few hundred markets take several rules.
    for (const slugs of chunkAlternation(marketSlugs.map(escapeRegex), MAX_ALTERNATION_CHARS)) {
      rules.push(
        rule(
          `^/api/v1/markets/cot/(${slugs})\\?report_type=(?!(${REPORT_TYPES})$)${PLAIN_VALUE}$`,
          reportTypeError,
        ),
      );
    }
  }
  const endpointPaths = new Set<string>([
    ...[...paths.keys()].filter((path) => !path.startsWith('/api/v1/markets/cot/')),
    ...ROUTES.filter((route) => !route.path.includes(':slug')).flatMap((route) =>
      // The CSV path of a route with format (/api/v1/changes.csv) goes to mmds serve too.
      route.query.includes('format') ? [route.path, `${route.path}${CSV_PATH_SUFFIX}`] : [route.path],
    ),
  ]);
  for (const path of [...endpointPaths].sort()) rules.push(rule(`^${escapeRegex(path)}(\\?|$)`, ''));
  for (const route of ROUTES.filter((r) => r.path.includes(':slug'))) {
    const prefix = escapeRegex(route.path.slice(0, route.path.indexOf(':slug')));
    if (route.prerender === 'per-slug') {
      // A market by its CFTC code (/api/v1/markets/cot/088691) has no file: mmds serve answers it.
      if (route.id === 'cot-market') rules.push(rule(`^${prefix}[0-9A-Za-z+]{6}(\\?|$)`, ''));
      // No file for this slug and no parameter: an unknown market (or a malformed slug).
      rules.push(rule(`^${prefix}[^/?]+$`, `/${notFound.file}`));
      rules.push(rule(`^${prefix}[a-z0-9-]{1,64}\\?`, ''));
    } else {
      rules.push(rule(`^${prefix}[^/?]+(\\?|$)`, ''));
    }
  }
  // The files of the full store (keyed, several path segments): mmds serve answers them.
  rules.push(rule(`^${escapeRegex(BULK_FULL_FILE_PREFIX)}`, ''));
  rules.push(rule('^/api/', `/${notFound.file}`));
  return rules;
}

function rule(regex: string, file: string): string {
  return `    ${quote(`~${regex}`)} ${value(file)};`;
}

export function renderVaryEntries(routes: readonly StaticRoute[]): string[] {
  // The map's default is the Vary of a route without a keyed view; only the others are listed.
  const plain = varyFor({ access: { kind: 'public' } });
  const vary = new Map(ROUTES.map((route) => [route.id as string, varyFor(route)]));
  return uniqueFiles(routes).flatMap(([file, route]) => {
    const value = route.route_id === null ? plain : (vary.get(route.route_id) ?? plain);
    return value === plain ? [] : [`    ${quote(`/${file}`)} "${value}";`];
  });
}

export function uniqueFiles(routes: readonly StaticRoute[]): Array<[string, StaticRoute]> {
  const files = new Map<string, StaticRoute>();
  for (const route of routes) if (!files.has(route.file)) files.set(route.file, route);
  return [...files];
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * An nginx single-quoted string: nginx turns `\\` into `\` and `\'` into `'` inside quotes. Map
 * keys are taken literally (a regex may end in `$`).
 */
export function quote(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/**
 * A map value or directive argument, quoted. In these a `$` starts a variable, so text with one
 * is refused, apart from the `$mmds_request_id` put into the error bodies on purpose.
 */
export function value(text: string): string {
  if (/\$(?!mmds_request_id\b)/.test(text)) throw new Error(`nginx configuration value holds a "$": ${text}`);
  return quote(text);
}

export function nextPowerOfTwo(n: number): number {
  let power = 1;
  while (power < n) power *= 2;
  return power;
}

/** Longest alternation in one map regex: the rest of the rule must fit nginx's 4096-byte token. */
const MAX_ALTERNATION_CHARS = 3000;

/** Joins alternatives with `|` into as few groups as fit `maxChars` each (one alone may exceed it). */
function chunkAlternation(alternatives: readonly string[], maxChars: number): string[] {
  const groups: string[] = [];
  let current = '';
  for (const alternative of alternatives) {
    if (current !== '' && current.length + 1 + alternative.length > maxChars) {
      groups.push(current);
      current = '';
    }
    current = current === '' ? alternative : `${current}|${alternative}`;
  }
  if (current !== '') groups.push(current);
  return groups;
}
