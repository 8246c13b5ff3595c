/**
 * The response header rules, in one place: Cache-Control per route and caller, Vary, the header
 * fields every response carries (CORS, the exposed headers, nosniff). The server's paths, the
 * built `_headers` file (build/host-rules.ts), `nginx.conf` (build/nginx-conf.ts), the upload's
 * object metadata and the raw-socket error answer (answer-client-error.ts) all take their fields
 * from here, so that a file served by a CDN, by nginx or by `mmds serve` carries the same ones.
 */

/** Header fields as name and value pairs, in the order they are sent. */
export type HeaderPairs = Array<[string, string]>;

/** The response fields a browser script may read across origins (CORS). */
export const EXPOSED_HEADERS =
  'ETag, X-Request-Id, X-Snapshot-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, RateLimit, RateLimit-Policy, Retry-After';

/** Header fields of every response (CORS and nosniff), whichever path answers it. */
export const BASE_HEADERS: HeaderPairs = [
  ['access-control-allow-origin', '*'],
  ['access-control-expose-headers', EXPOSED_HEADERS],
  ['x-content-type-options', 'nosniff'],
];

/** Cache-Control of errors, streams and live answers: a CDN must never pin a 404 or a 429. */
export const NO_STORE = 'no-store';

/** Cache-Control of an answer to a key: never in a shared cache, never reused. */
export const KEYED_CACHE_CONTROL = 'private, no-store';

/** Cache-Control of a public payload kept `maxAge` seconds. */
export function publicCacheControl(maxAge: number): string {
  return `public, max-age=${maxAge}`;
}

/** Cache-Control of the pages and assets (no route of their own), as mmds serve and nginx.conf send them. */
export const SITE_CACHE_CONTROL = publicCacheControl(300);

/** Cache-Control of a route's answer: public for `maxAge` seconds, private and never stored for a key. */
export function cacheControlFor(maxAge: number, keyed: boolean): string {
  return keyed ? KEYED_CACHE_CONTROL : publicCacheControl(maxAge);
}

/**
 * Vary of a route's answer: by encoding always, and by Authorization where a key changes the
 * body (a public route whose keyed view differs: `public-or-scope`).
 */
export function varyFor(route: { access: { kind: string } }): string {
  return route.access.kind === 'public-or-scope' ? 'Authorization, Accept-Encoding' : 'Accept-Encoding';
}
