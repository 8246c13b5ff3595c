import { BlockList, isIP } from 'node:net';

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
  ['64:ff9b:1::', 48], // local-use NAT64
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

/** Unwraps an IPv4-mapped IPv6 address (`::ffff:10.0.0.1`), which reaches the IPv4 host. */
function normalise(address: string): { address: string; type: 'ipv4' | 'ipv6' } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return { address: mapped[1]!, type: 'ipv4' };
  return { address, type: isIP(address) === 4 ? 'ipv4' : 'ipv6' };
}

/**
 * Why a resolved address may not receive webhooks under a policy, or null when it may. The
 * reason names the address for the dead letter (the operator's own list, never a secret).
 */
export function refusalOf(address: string, policy: AddressPolicy): string | null {
  if (isIP(address) === 0) return `${address} is not an IP address`;
  const { address: plain, type } = normalise(address);
  if (
    policy.networks.check(plain, type) ||
    policy.networks.check(address, isIP(address) === 4 ? 'ipv4' : 'ipv6')
  )
    return null;
  if (REFUSED.check(plain, type))
    return `refused address ${address}: loopback, private, link-local, metadata or reserved (allow it with MMDS_HOOKS_ALLOW_HOSTS)`;
  return null;
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
