import { BlockList, isIP } from 'node:net';
import { embeddedIpv4 } from './embedded-ipv4.ts';

/**
 * Where webhooks may not go (SSRF): a subscription's URL is chosen by whoever arranged it, and a
 * delivery from inside the operator's network must not reach the loopback interface, the private
 * networks, link-local addresses or a cloud metadata service. The operator can allow hosts or
 * networks (MMDS_HOOKS_ALLOW_HOSTS: host names, addresses, CIDR ranges); tests allow loopback.
 * The check is made on every address a name resolves to, and again on the address the socket
 * actually connected to (a name that answers differently the second time, DNS rebinding).
 */

const REFUSED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT, private to the provider
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, 169.254.169.254 metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const)
  REFUSED.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128],
  ['fc00::', 7], // unique local, fd00:ec2::254 metadata
  ['fe80::', 10],
  ['ff00::', 8], // multicast
  // Local-use NAT64 (RFC 8215): where the IPv4 address sits depends on a prefix length only the
  // translator's operator knows (embedded-ipv4.ts), so the whole prefix is refused.
  ['64:ff9b:1::', 48],
] as const)
  REFUSED.addSubnet(network, prefix, 'ipv6');

/** The operator's exceptions: host names as written in URLs, and addresses or networks. */
export interface AddressPolicy {
  /** Lower-case host names whose URLs may use http and whose addresses are not checked. */
  hosts: ReadonlySet<string>;
  /** Addresses and networks that are allowed although refused by default. */
  networks: BlockList;
}

/** The policy with no exceptions. */
export const STRICT_POLICY: AddressPolicy = { hosts: new Set(), networks: new BlockList() };

/**
 * Reads MMDS_HOOKS_ALLOW_HOSTS: comma-separated host names (`localhost`, `hooks.internal`),
 * addresses (`127.0.0.1`, `::1`) and networks (`10.1.0.0/16`). Throws on a malformed entry.
 */
export function parseAllowHosts(text: string | null | undefined): AddressPolicy {
  const hosts = new Set<string>();
  const networks = new BlockList();
  for (const raw of (text ?? '').split(',')) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    const [address, bits, extra] = entry.split('/');
    const family = isIP(address ?? '');
    if (family !== 0) {
      const type = family === 4 ? 'ipv4' : 'ipv6';
      if (bits === undefined) networks.addAddress(address!, type);
      else {
        const prefix = Number(bits);
        if (extra !== undefined || !/^\d{1,3}$/.test(bits) || prefix > (family === 4 ? 32 : 128))
          throw new Error(`MMDS_HOOKS_ALLOW_HOSTS: "${raw.trim()}" is not an address or a network`);
        networks.addSubnet(address!, prefix, type);
      }
      // An address is also how it is written in a URL's host.
      hosts.add(family === 6 ? `[${address}]` : address!);
    } else if (/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(entry))
      hosts.add(entry);
    else throw new Error(`MMDS_HOOKS_ALLOW_HOSTS: "${raw.trim()}" is not a host name, address or network`);
  }
  return { hosts, networks };
}

const familyOf = (address: string) => (isIP(address) === 4 ? 'ipv4' : 'ipv6');

/**
 * Why a resolved address may not receive webhooks under a policy, or null when it may. An IPv6
 * address that carries an IPv4 address (embedded-ipv4.ts) is refused when either is, unless the
 * operator allowed the one refused. The reason names the address for the dead letter.
 */
export function refusalOf(address: string, policy: AddressPolicy): string | null {
  if (isIP(address) === 0) return `${address} is not an IP address`;
  // BlockList applies IPv4 rules to IPv4-mapped addresses itself; the other forms are unwrapped.
  if (policy.networks.check(address, familyOf(address))) return null;
  const carried = embeddedIpv4(address).filter(
    (inner) => REFUSED.check(inner, 'ipv4') && !policy.networks.check(inner, 'ipv4'),
  );
  if (carried.length === 0 && !REFUSED.check(address, familyOf(address))) return null;
  const via = carried.length > 0 ? ` (carrying ${carried.join(' and ')})` : '';
  return `refused address ${address}${via}: loopback, private, link-local, metadata or reserved (allow it with MMDS_HOOKS_ALLOW_HOSTS)`;
}

/** Tells whether a URL's host is on the operator's list (then plain http is accepted too). */
export function isAllowedHost(url: URL, policy: AddressPolicy): boolean {
  return policy.hosts.has(url.hostname.toLowerCase());
}

/**
 * Describes what is wrong with a subscription URL, or returns null: https (http only for allowed
 * hosts), no credentials, no fragment. Addresses are checked at delivery, when they are resolved.
 */
export function describeUrlProblem(text: string, policy: AddressPolicy): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `--url must be an absolute https URL, got "${text}"`;
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isAllowedHost(url, policy)))
    return `--url must use https (plain http only for a host in MMDS_HOOKS_ALLOW_HOSTS), got "${url.protocol}"`;
  if (url.username !== '' || url.password !== '') return '--url must not hold a user name or password';
  if (url.hash !== '') return '--url must not have a #fragment';
  if (text.length > 2000) return '--url must be at most 2000 characters';
  // A literal address is checked now already: a typo of the operator is refused at once.
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(literal) !== 0 && !isAllowedHost(url, policy)) {
    const refusal = refusalOf(literal, policy);
    if (refusal) return `--url: ${refusal}`;
  }
  return null;
}
