import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, resolve, sep } from 'node:path';

/** A running emulated static host: its base URL and how to stop it. */
export interface StaticHost {
  url: string;
  close(): Promise<void>;
}

interface RedirectRule {
  from: RegExp;
  /** `name=value` needs that value; `name=:placeholder` needs the parameter with any value. */
  query: Array<{ name: string; value: string }>;
  to: string;
  status: number;
  force: boolean;
}

interface HeaderRule {
  path: RegExp;
  headers: Record<string, string>;
}

const DEFAULT_TYPES: Record<string, string> = {
  '.json': 'application/json',
  '.html': 'text/html; charset=UTF-8',
  '.txt': 'text/plain; charset=UTF-8',
  '.css': 'text/css; charset=UTF-8',
  '.js': 'application/javascript',
  '.svg': 'image/svg+xml',
  '.xml': 'application/xml',
};
const NETLIFY_DEFAULT_CACHE = 'public,max-age=0,must-revalidate';
const HOST_FILES = new Set(['/_headers', '/_redirects']);

/**
 * A stand-in for a static host (Netlify) serving a built dist/: it reads dist/_redirects and
 * dist/_headers the way Netlify does, so tests can check what a CDN would answer. It knows
 * only the syntax `mmds build` writes (src/build/host-rules.ts) and refuses anything else, so
 * a new kind of rule fails loudly here instead of being ignored.
 *
 * Netlify behaviour copied:
 * - `_redirects`: `from [name=value|name=:placeholder]... to status[!]`, first match wins;
 *   `:name` matches one path segment, a trailing `*` the rest (`:splat` in the target);
 *   a rule without query conditions matches any query string; a condition `name=value`
 *   needs that exact value, `name=:placeholder` only needs the parameter. Status 200 is a
 *   rewrite, other 2xx and 4xx serve the target's bytes with that status, 3xx redirects.
 * - Shadowing: an existing file at the request path is served as is unless the rule is
 *   forced with `!`. `_headers` and `_redirects` themselves are never served.
 * - `_headers`: a path line, then indented `Name: value` lines. Every block whose path matches
 *   the file actually served (the rewrite target, as `netlify dev` does) applies in file
 *   order; a later block overrides a header an earlier one set, repeated names in one block
 *   are joined with `, `. Defaults before the rules: a Content-Type by extension without a
 *   charset, and Netlify's `Cache-Control: public,max-age=0,must-revalidate`.
 *
 * Starts it for `distDir` on a free loopback port.
 */
export async function startStaticHost(distDir: string): Promise<StaticHost> {
  const root = resolve(distDir);
  const redirects = parseRedirects(readOptional(join(root, '_redirects')));
  const headerRules = parseHeaders(readOptional(join(root, '_headers')));
  const server = createServer((request, response) => {
    try {
      answer(root, redirects, headerRules, request, response);
    } catch (error) {
      response.writeHead(500, { 'Content-Type': 'text/plain' });
      response.end(`static host: ${(error as Error).message}`);
    }
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((done, fail) => {
        server.close((error) => (error ? fail(error) : done()));
        server.closeAllConnections();
      }),
  };
}

function answer(
  root: string,
  redirects: readonly RedirectRule[],
  headerRules: readonly HeaderRule[],
  request: IncomingMessage,
  response: ServerResponse,
): void {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.writeHead(405, { Allow: 'GET, HEAD' });
    response.end();
    return;
  }
  const url = new URL(request.url ?? '/', 'http://static.invalid');
  const path = normalisePath(url.pathname);
  const shadow = findFile(root, path);
  for (const rule of redirects) {
    const match = matchRule(rule, path, url.searchParams);
    if (!match) continue;
    if (shadow && !rule.force) break;
    const target = rule.to.replace(/:([a-z_]+)/gi, (whole, name: string) => match[name] ?? whole);
    if (rule.status >= 300 && rule.status < 400) {
      response.writeHead(rule.status, { Location: target, 'Cache-Control': 'no-cache' });
      response.end();
      return;
    }
    const file = findFile(root, normalisePath(new URL(target, url).pathname));
    if (file) sendFile(root, file, rule.status, headerRules, request, response);
    else notFound(root, headerRules, request, response);
    return;
  }
  if (shadow) sendFile(root, shadow, 200, headerRules, request, response);
  else notFound(root, headerRules, request, response);
}

function sendFile(
  root: string,
  file: string,
  status: number,
  headerRules: readonly HeaderRule[],
  request: IncomingMessage,
  response: ServerResponse,
): void {
  const body = readFileSync(join(root, file));
  const headers: Record<string, string> = {
    'content-type': DEFAULT_TYPES[extname(file)] ?? 'application/octet-stream',
    'cache-control': NETLIFY_DEFAULT_CACHE,
  };
  for (const rule of headerRules) if (rule.path.test(file)) Object.assign(headers, rule.headers);
  headers['content-length'] = String(body.length);
  response.writeHead(status, headers);
  response.end(request.method === 'HEAD' ? undefined : body);
}

function notFound(
  root: string,
  headerRules: readonly HeaderRule[],
  request: IncomingMessage,
  response: ServerResponse,
): void {
  if (findFile(root, '/404.html')) {
    sendFile(root, '/404.html', 404, headerRules, request, response);
    return;
  }
  response.writeHead(404, { 'Content-Type': 'text/plain; charset=UTF-8' });
  response.end(request.method === 'HEAD' ? undefined : 'Not Found');
}

/** The dist/ file a path names, as Netlify resolves it (`/a` -> `/a`, `/a.html`, `/a/index.html`). */
function findFile(root: string, path: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return null;
  }
  const base = decoded === '/' ? '' : decoded;
  for (const candidate of [base, `${base}.html`, `${base}/index.html`]) {
    if (candidate === '' || HOST_FILES.has(candidate)) continue;
    const absolute = resolve(root, `.${candidate}`);
    if (absolute !== root && !absolute.startsWith(root + sep)) return null;
    if (existsSync(absolute) && statSync(absolute).isFile()) return candidate;
  }
  return null;
}

/** Netlify treats `/a` and `/a/` alike in rules. */
function normalisePath(path: string): string {
  return path.length > 1 ? path.replace(/\/+$/, '') : path;
}

function matchRule(rule: RedirectRule, path: string, search: URLSearchParams): Record<string, string> | null {
  const matched = rule.from.exec(path);
  if (!matched) return null;
  const params: Record<string, string> = { ...matched.groups };
  for (const condition of rule.query) {
    const value = search.get(condition.name);
    if (value === null) return null;
    if (condition.value.startsWith(':')) params[condition.value.slice(1)] = value;
    else if (value !== condition.value) return null;
  }
  return params;
}

/** Compiles a Netlify path pattern (`:name` segments, trailing `*`) to a regular expression. */
function compilePattern(pattern: string): RegExp {
  const path = normalisePath(pattern);
  const splat = path.endsWith('/*');
  const body = (splat ? path.slice(0, -2) : path)
    .split('/')
    .map((segment) =>
      segment.startsWith(':')
        ? `(?<${segment.slice(1)}>[^/]+)`
        : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('/');
  return new RegExp(`^${body}${splat ? '(?:/(?<splat>.*))?' : ''}$`);
}

/** Parses `_redirects`; throws on syntax `mmds build` does not write. */
function parseRedirects(text: string): RedirectRule[] {
  const rules: RedirectRule[] = [];
  for (const [index, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const tokens = line.split(/\s+/);
    const toIndex = tokens.findIndex((token, i) => i > 0 && /^(\/|https?:\/\/)/.test(token));
    const statusToken = tokens[toIndex + 1] ?? '301';
    const status = /^(\d{3})!?$/.exec(statusToken);
    const conditions = tokens.slice(1, toIndex);
    if (
      toIndex < 0 ||
      !status ||
      tokens.length > toIndex + 2 ||
      conditions.some((c) => !/^[^=]+=[^=]+$/.test(c))
    ) {
      throw new Error(`_redirects line ${index + 1}: unsupported rule "${line}"`);
    }
    if (tokens[toIndex]!.startsWith('http')) {
      throw new Error(`_redirects line ${index + 1}: proxying to another host is not emulated`);
    }
    rules.push({
      from: compilePattern(tokens[0]!),
      query: conditions.map((condition) => {
        const [name, value] = condition.split('=') as [string, string];
        return { name, value };
      }),
      to: tokens[toIndex]!,
      status: Number(status[1]),
      force: statusToken.endsWith('!'),
    });
  }
  return rules;
}

/** Parses `_headers`; throws on lines outside the path/indented-header shape. */
function parseHeaders(text: string): HeaderRule[] {
  const rules: HeaderRule[] = [];
  let current: HeaderRule | null = null;
  for (const [index, raw] of text.split('\n').entries()) {
    if (raw.trim() === '' || raw.trim().startsWith('#')) continue;
    if (!/^\s/.test(raw)) {
      current = { path: compilePattern(raw.trim()), headers: {} };
      rules.push(current);
      continue;
    }
    const header = /^\s+([A-Za-z0-9-]+):\s*(.*)$/.exec(raw);
    if (!current || !header) throw new Error(`_headers line ${index + 1}: unsupported line "${raw}"`);
    const name = header[1]!.toLowerCase();
    const value = header[2]!.trim();
    current.headers[name] =
      current.headers[name] === undefined ? value : `${current.headers[name]}, ${value}`;
  }
  return rules;
}

function readOptional(path: string): string {
  return existsSync(path) ? readFileSync(path, 'utf8') : '';
}
