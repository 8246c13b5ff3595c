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

/** Default length of the IPv6 prefix one anonymous client is limited by (MMDS_RATE_LIMIT_IPV6_PREFIX). */
export const DEFAULT_IPV6_PREFIX = 64;

/**
 * The subject an anonymous rate limit counts a client address against: an IPv4 address itself
 * (IPv4-mapped IPv6 included), an IPv6 address by its network of `ipv6Prefix` bits, written
 * `2001:db8:0:1::/64`. One subscriber is given a whole /64 (RFC 6177, and a /48 or /56 often),
 * and picks any address of it at will (privacy addresses, RFC 8981): counting per address would
 * give one client 2^64 limits. Cloudflare's and most IETF guidance limit IPv6 per /64. A prefix
 * of 128 counts each address alone. Anything that is not an IP address is its own subject.
 */
export function rateLimitSubject(address: string, ipv6Prefix: number = DEFAULT_IPV6_PREFIX): string {
  if (!Number.isInteger(ipv6Prefix) || ipv6Prefix < 1 || ipv6Prefix > 128) {
    throw new RangeError(
      `the IPv6 rate-limit prefix must be a whole number from 1 to 128, got ${ipv6Prefix}`,
    );
  }
  if (isIPv4(address)) return address;
  const ip = normalizeIp(address);
  if (ip === null) return address;
  if (isIPv4(ip) || ipv6Prefix === 128) return ip;
  const groups = expandIPv6(ip);
  let remaining = ipv6Prefix;
  const masked = groups.map((group) => {
    const keep = Math.max(0, Math.min(16, remaining));
    remaining -= keep;
    return keep === 0 ? 0 : group & ((0xffff << (16 - keep)) & 0xffff);
  });
  const network = normalizeIp(masked.map((group) => group.toString(16)).join(':'))!;
  return `${network}/${ipv6Prefix}`;
}

/** The eight 16-bit groups of an IPv6 address in the canonical form normalizeIp returns (hex only). */
function expandIPv6(canonical: string): number[] {
  const [head = '', tail] = canonical.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const middle = tail === undefined ? [] : Array(8 - left.length - right.length).fill('0');
  return [...left, ...middle, ...right].map((group) => Number.parseInt(group, 16));
}
