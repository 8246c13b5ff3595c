import { isIPv4, isIPv6 } from 'node:net';

/**
 * Resolves the client IP that rate limits are keyed on.
 *
 * `trustedHops` is the number of proxies of ours in front of the server. With 0, the socket
 * address is the client. With n, the socket peer is the nearest proxy, and each trusted proxy
 * appended the address it saw to X-Forwarded-For; the entry appended by the outermost trusted
 * proxy is the n-th from the right. Everything left of it was written by the client (or by proxies
 * we do not run) and is never used.
 *
 * Example, trustedHops = 2 (a CDN, then a load balancer):
 *
 *   client 203.0.113.7 sends        X-Forwarded-For: 6.6.6.6            (spoofed)
 *   CDN 198.51.100.2 appends         6.6.6.6, 203.0.113.7
 *   load balancer 10.0.0.5 appends   6.6.6.6, 203.0.113.7, 198.51.100.2
 *   server sees socket 10.0.0.5 and that header: skip 1 entry from the right (198.51.100.2,
 *   written by the load balancer), take the next: 203.0.113.7.
 *
 * If an entry on the walk is missing (fewer than n entries: the request came in past a proxy) or
 * is not an IP address, the walk stops at the last trusted address it reached, the nearest proxy's
 * view of its peer, or the socket address itself. IPv4-mapped IPv6 (::ffff:1.2.3.4) becomes
 * 1.2.3.4, IPv6 is put in its canonical lowercase compressed form, and a port (`1.2.3.4:5678`,
 * `[2001:db8::1]:443`) or zone (`fe80::1%eth0`) is dropped, so one client has one key.
 */
export function resolveClientIp(
  socketAddress: string,
  xForwardedFor: string | null,
  trustedHops: number,
): string {
  if (!Number.isInteger(trustedHops) || trustedHops < 0) {
    throw new RangeError(`trusted proxy hops must be a whole number >= 0, got ${trustedHops}`);
  }
  let client = normalizeIp(socketAddress) ?? socketAddress.trim();
  if (trustedHops === 0 || !xForwardedFor) return client;
  const entries = xForwardedFor.split(',');
  // The socket peer is trusted hop 1; each further hop's address is one more entry from the right.
  for (let hop = 1; hop <= trustedHops; hop++) {
    const entry = entries[entries.length - hop];
    const address = entry === undefined ? null : normalizeIp(entry);
    if (address === null) break;
    client = address;
  }
  return client;
}

/** Returns the canonical form of an IP address (with an optional port or zone), or null if it is none. */
export function normalizeIp(raw: string): string | null {
  let text = raw.trim();
  // The common case first: a bare IPv4 address is already canonical.
  if (isIPv4(text)) return text;
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(text);
  if (bracketed) text = bracketed[1]!;
  else if (/^[\d.]+:\d{1,5}$/.test(text)) text = text.slice(0, text.lastIndexOf(':'));
  const zone = text.indexOf('%');
  if (zone > 0) text = text.slice(0, zone);
  if (isIPv4(text)) return text;
  if (!isIPv6(text)) return null;
  // The WHATWG URL parser prints IPv6 in the RFC 5952 canonical form.
  const canonical = new URL(`http://[${text}]/`).hostname.slice(1, -1);
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (!mapped) return canonical;
  const high = Number.parseInt(mapped[1]!, 16);
  const low = Number.parseInt(mapped[2]!, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}
