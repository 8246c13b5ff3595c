import { isIP } from 'node:net';

/**
 * IPv6 forms that carry an IPv4 address (issue 37): a packet to one of them reaches, through the
 * host's own stack or a translator or relay on the way, the IPv4 address inside. So such an
 * address is judged by the IPv4 address it carries as well as by itself: `[::127.0.0.1]`,
 * `[64:ff9b::7f00:1]` and `[2002:7f00:1::]` all lead to 127.0.0.1.
 *
 * 64:ff9b:1::/48 (RFC 8215, local-use NAT64) is not decoded here: the operator of the translator
 * picks the prefix length inside it (/48 to /96), and RFC 6052 places the IPv4 bits differently
 * for each (for /48 split around the u-octet, bits 64-71), so one address names a different
 * IPv4 address under each length. The address policy refuses that whole prefix instead.
 */

/** An IPv6 address as its eight 16-bit groups. */
type Groups = [number, number, number, number, number, number, number, number];

/** The eight 16-bit groups of an IPv6 address, or null when it is not one. */
function groupsOf(address: string): Groups | null {
  // A zone (fe80::1%eth0) names an interface, not bits of the address.
  const bare = address.replace(/%.*$/, '');
  if (isIP(bare) !== 6) return null;
  // The WHATWG URL parser writes every valid spelling (a dotted tail, capitals, leading zeros)
  // as lower-case hex groups with at most one "::", which leaves only the "::" to expand.
  const canonical = new URL(`http://[${bare}]/`).hostname.slice(1, -1);
  const [head = '', tail] = canonical.split('::');
  const parse = (part: string) =>
    part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16));
  if (tail === undefined) return parse(head) as Groups;
  const left = parse(head);
  const right = parse(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right] as Groups;
}

/** Two 16-bit groups as a dotted IPv4 address. */
function dotted(high: number, low: number): string {
  return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
}

const zero = (groups: number[]) => groups.every((group) => group === 0);

/**
 * The IPv4 addresses an IPv6 address carries (none for plain IPv6 and for IPv4 addresses):
 * IPv4-compatible ::/96 and IPv4-mapped ::ffff:0:0/96 (RFC 4291), IPv4-translated
 * ::ffff:0:0:0/96 (RFC 2765), NAT64 64:ff9b::/96 (RFC 6052), 6to4 2002::/16 (RFC 3056), Teredo
 * 2001::/32 (RFC 4380: its server, and its client XORed with 0xffffffff) and ISATAP interface
 * identifiers ::0:5efe:a.b.c.d and ::200:5efe:a.b.c.d under any prefix (RFC 5214).
 */
export function embeddedIpv4(address: string): string[] {
  const groups = groupsOf(address);
  if (groups === null) return [];
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups;
  const last = dotted(g6, g7);
  if (zero(groups.slice(0, 5)) && (g5 === 0 || g5 === 0xffff)) return [last];
  if (zero(groups.slice(0, 4)) && g4 === 0xffff && g5 === 0) return [last];
  if (g0 === 0x64 && g1 === 0xff9b && zero(groups.slice(2, 6))) return [last];
  if (g0 === 0x2002) return [dotted(g1, g2)];
  if (g0 === 0x2001 && g1 === 0) return [dotted(g2, g3), dotted(g6 ^ 0xffff, g7 ^ 0xffff)];
  if ((g4 === 0 || g4 === 0x200) && g5 === 0x5efe) return [last];
  return [];
}
