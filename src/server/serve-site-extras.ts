import { createHash } from 'node:crypto';
import { API_INDEX_FILE, API_INDEX_MAX_AGE, createApiIndex } from '../api/v1/api-index.ts';
import type { Caller } from '../contract/authorise.ts';
import { unavailable } from '../contract/errors.ts';
import { cacheControlFor, NO_STORE } from '../contract/header-rules.ts';
import { acceptsHtml } from '../contract/render-error.ts';
import type { HandlerDeps } from './handler-deps.ts';
import { compressBody, createResponse, type Representation, respondWith } from './http-response.ts';
import type { ResponseHeaders } from './response-headers.ts';

/** The site's not-found page, written by the build from src/pages/404.astro. */
export const NOT_FOUND_PAGE = '/404.html';

/**
 * `GET /api/v1/` (and `/api/v1`): the endpoint list. The built file when dist/ holds one (the
 * same bytes a static host serves), else rendered from the route table for the current snapshot.
 */
export function serveApiIndex(
  request: Request,
  headers: ResponseHeaders,
  deps: HandlerDeps,
  caller: Caller | null,
): Response {
  const db = deps.snapshots.current();
  if (!db) throw unavailable('no snapshot has been published yet', 30);
  headers.set('X-Snapshot-Id', db.id);
  headers.set('Cache-Control', cacheControlFor(API_INDEX_MAX_AGE, caller !== null));
  const site = deps.staticSite();
  const built = site?.snapshot === db.id ? site.lookupFile(`/${API_INDEX_FILE}`) : null;
  if (built) return respondWith(request, built, headers);
  // Rendered once per snapshot (like the endpoints' payloads): the list depends on the route
  // table and the snapshot only, so the first rendering's body, ETag and compressed copies serve.
  const cacheKey = `${db.id} api-index`;
  const cached = deps.cache.get(cacheKey);
  if (cached) return respondWith(request, cached, headers);
  const generatedAt = `${deps.now().toISOString().slice(0, 19)}Z`;
  const body = Buffer.from(JSON.stringify(createApiIndex(db.id, generatedAt)));
  const representation: Representation = {
    body,
    ...compressBody(body),
    // Not over generated_at: every instance serving the snapshot gives the same ETag.
    etag: `"${createHash('sha256')
      .update(JSON.stringify(createApiIndex(db.id, '')))
      .digest('base64url')
      .slice(0, 32)}"`,
    contentType: 'application/json; charset=utf-8',
  };
  deps.cache.set(cacheKey, representation);
  return respondWith(request, representation, headers);
}

/** The live status page: rendered per request from the snapshot, so counted like the API. */
export function isStatusPagePath(path: string): boolean {
  return path === '/status' || path === '/status/';
}

/**
 * Whether a path names a built file of the site (a page, CSS, script, image, or the 404 page
 * for a path that is none): everything outside /api/ but the live status page. An anonymous
 * request for one is not rate-limited: they are static files a CDN or dist/nginx.conf serves
 * without counting (docs/rate-limits.md).
 */
export function isSiteFilePath(path: string): boolean {
  return !path.startsWith('/api/') && !isStatusPagePath(path);
}

/** Whether a request comes from a browser navigating: it accepts HTML. */
export function wantsHtml(request: Request): boolean {
  return acceptsHtml(request.headers.get('accept'));
}

/**
 * The HTML 404 page for a browser asking for a page that does not exist (never under /api/,
 * which keeps the JSON envelope), or null when dist/ has no such page: the caller then answers
 * with the envelope.
 */
export function serveNotFoundPage(
  request: Request,
  headers: ResponseHeaders,
  deps: HandlerDeps,
): Response | null {
  const page = deps.staticSite()?.lookupFile(NOT_FOUND_PAGE);
  if (!page) return null;
  headers.set('Content-Type', 'text/html; charset=utf-8');
  headers.set('Cache-Control', NO_STORE);
  headers.set('Content-Length', String(page.body.length));
  return createResponse(404, headers.toPairs(), request.method === 'HEAD' ? null : page.body);
}
