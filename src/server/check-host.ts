import type { IncomingMessage } from 'node:http';
import { ApiError } from '../contract/errors.ts';

/**
 * A Host header the URL of a request can be built from: a registered name or an IPv4 address,
 * or an IPv6 address in brackets, with an optional port. The WHATWG URL parser then decides
 * what the pattern cannot (an octet over 255, a port over 65535), as it would for the URL.
 */
const HOST_SYNTAX = /^(\[[0-9A-Fa-f:.]{2,45}\]|[A-Za-z0-9_.-]{1,253})(:\d{1,5})?$/;

/** The last Host header found valid: nearly every request repeats its connection's first one. */
let lastValid = '';

/** Whether `host` is a Host header value a URL can be built from (syntax, octets, port). */
export function isValidHost(host: string): boolean {
  if (host === lastValid) return true;
  if (!HOST_SYNTAX.test(host) || !URL.canParse(`http://${host}/`)) return false;
  lastValid = host;
  return true;
}

/**
 * Whether a node:http request's Host header is acceptable: exactly one, valid, or none in an
 * HTTP/1.0 request (RFC 9112 section 3.2: an HTTP/1.1 request without Host, and any request with
 * two Host lines or an invalid one, is a 400).
 */
export function hostAccepted(request: IncomingMessage): boolean {
  const host = request.headers.host;
  if (host === undefined) return request.httpVersion === '1.0';
  // node:http keeps the first of several Host lines in `headers`: only the raw lines show the rest.
  return isValidHost(host) && !repeatsHost(request.rawHeaders);
}

/** Whether raw header lines (name, value, name, value...) hold more than one Host field. */
function repeatsHost(rawHeaders: readonly string[]): boolean {
  let seen = false;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length !== 4 || name.toLowerCase() !== 'host') continue;
    if (seen) return true;
    seen = true;
  }
  return false;
}

/**
 * The 400 for a missing, repeated or invalid Host header. Several Host lines come as one value
 * joined by commas (as the Fetch API joins them), which no valid Host contains.
 */
export function invalidHost(host: string | null): ApiError {
  return new ApiError(
    'invalid_parameter',
    host === null
      ? 'the request has no Host header; HTTP/1.1 requires one'
      : host.includes(',')
        ? 'the request has more than one Host header, or a list in one; HTTP/1.1 allows one host'
        : 'the Host header is not a valid host name or address with an optional port up to 65535',
  );
}

/** Where `quarantineHost` keeps the Host lines a request arrived with (null: none) when it was refused. */
const REFUSED_HOST = Symbol('mmds.refusedHost');

type MarkedRequest = IncomingMessage & { [REFUSED_HOST]?: string | null };

/**
 * Called on node:http requests before srvx and h3 see them: a missing, repeated or bad Host is kept aside
 * and replaced by `localhost`, because srvx and h3 build the request's URL from it and a URL on
 * `x:99999` or `1.2.3.256` throws before any handler could answer (a bare 500). The handler then
 * answers the 400 (`refusedHost`), after the rate limit, in the envelope.
 */
export function quarantineHost(request: IncomingMessage): void {
  if (hostAccepted(request)) return;
  (request as MarkedRequest)[REFUSED_HOST] = hostLines(request.rawHeaders);
  request.headers.host = 'localhost';
}

/** The values of a request's Host lines joined by commas, or null when it has none. */
function hostLines(rawHeaders: readonly string[]): string | null {
  const values: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2)
    if (rawHeaders[i]!.toLowerCase() === 'host') values.push(rawHeaders[i + 1]!);
  return values.length === 0 ? null : values.join(', ');
}

/**
 * The Host a request was refused for: its value (several joined by commas), null when it had
 * none, undefined when it is acceptable. Requests not served by node:http (app.fetch) are checked here directly.
 */
export function refusedHost(request: Request): string | null | undefined {
  const node = (request as Request & { runtime?: { node?: { req?: MarkedRequest } } }).runtime?.node?.req;
  if (node) return node[REFUSED_HOST];
  const host = request.headers.get('host');
  return host === null || isValidHost(host) ? undefined : host;
}
