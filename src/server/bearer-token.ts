/**
 * The one reading of an Authorization header: `Bearer <token>`, the scheme in any case, the token
 * 1 to 200 visible ASCII characters. The general path and the keyed fast path both use it, so a
 * header one of them accepts the other does too.
 */
const BEARER = /^Bearer ([\x21-\x7e]{1,200})$/i;

/** The token of an Authorization header, or undefined when it is not a well-formed Bearer one. */
export function bearerToken(authorization: string): string | undefined {
  return BEARER.exec(authorization.trim())?.[1];
}
