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
 * Whether a request's Host header is acceptable: present and valid, or absent from an HTTP/1.0
 * request (RFC 9112 section 3.2: an HTTP/1.1 request without Host, or with an invalid one, is a 400).
 * `httpVersion` is null where the transport is not node:http (app.fetch in tests): absence passes.
 */
export function hostAccepted(host: string | null | undefined, httpVersion: string | null): boolean {
  if (host === null || host === undefined) return httpVersion === null || httpVersion === '1.0';
  return isValidHost(host);
}

/** The 400 for a missing or invalid Host header. */
export function invalidHost(host: string | null): ApiError {
  return new ApiError(
    'invalid_parameter',
    host === null
      ? 'the request has no Host header; HTTP/1.1 requires one'
      : 'the Host header is not a valid host name or address with an optional port up to 65535',
  );
}

/** Where `quarantineHost` keeps the Host a request arrived with (null: none) when it was refused. */
const REFUSED_HOST = Symbol('mmds.refusedHost');

type MarkedRequest = IncomingMessage & { [REFUSED_HOST]?: string | null };

/**
 * Called on node:http requests before srvx and h3 see them: a missing or bad Host is kept aside
 * and replaced by `localhost`, because srvx and h3 build the request's URL from it and a URL on
 * `x:99999` or `1.2.3.256` throws before any handler could answer (a bare 500). The handler then
 * answers the 400 (`refusedHost`), after the rate limit, in the envelope.
 */
export function quarantineHost(request: IncomingMessage): void {
  const host = request.headers.host;
  if (hostAccepted(host, request.httpVersion)) return;
  (request as MarkedRequest)[REFUSED_HOST] = host ?? null;
  request.headers.host = 'localhost';
}

/**
 * The Host a request was refused for: its value, null when it had none, undefined when it is
 * acceptable. Requests not served by node:http (app.fetch) are checked here directly.
 */
export function refusedHost(request: Request): string | null | undefined {
  const node = (request as Request & { runtime?: { node?: { req?: MarkedRequest } } }).runtime?.node?.req;
  if (node) return node[REFUSED_HOST];
  const host = request.headers.get('host');
  return host === null || isValidHost(host) ? undefined : host;
}
