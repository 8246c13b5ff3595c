import { describe, expect, it } from 'vitest';
import {
  describeUrlProblem,
  parseAllowHosts,
  refusalOf,
  STRICT_POLICY,
} from '../../../src/hooks/address-policy.ts';
import { embeddedIpv4 } from '../../../src/hooks/embedded-ipv4.ts';

/**
 * IPv6 forms that carry an IPv4 address (issue 37): each is judged by the address it carries, so
 * none is a side door to loopback, the private networks or the metadata service.
 */

/** [form, address, the refused IPv4 address it carries (null: refused as a whole)]. */
const REFUSED_FORMS: Array<[string, string, string | null]> = [
  ['IPv4-compatible', '::127.0.0.1', '127.0.0.1'],
  ['IPv4-compatible, hex', '::a9fe:a9fe', '169.254.169.254'],
  ['IPv4-mapped', '::ffff:127.0.0.1', '127.0.0.1'],
  ['IPv4-mapped, hex', '::ffff:a00:1', '10.0.0.1'],
  ['IPv4-translated', '::ffff:0:192.168.1.1', '192.168.1.1'],
  ['NAT64', '64:ff9b::7f00:1', '127.0.0.1'],
  ['NAT64, dotted', '64:ff9b::169.254.169.254', '169.254.169.254'],
  ['NAT64, written out', '0064:FF9B:0000:0000:0000:0000:0A00:0001', '10.0.0.1'],
  ['local-use NAT64, /96 inside', '64:ff9b:1::7f00:1', null],
  ['local-use NAT64, /48 as RFC 6052 writes 127.0.0.1', '64:ff9b:1:7f00:1::', null],
  ['local-use NAT64, public-looking', '64:ff9b:1:808:8:800::', null],
  ['6to4', '2002:7f00:1::', '127.0.0.1'],
  ['6to4, private', '2002:c0a8:101::1', '192.168.1.1'],
  ['Teredo, private client', '2001:0:4136:e378:8000:63bf:f5ff:fffe', '10.0.0.1'],
  ['Teredo, loopback client', '2001:0:4136:e378:8000:63bf:80ff:fffe', '127.0.0.1'],
  ['Teredo, private server', '2001:0:a00:1:8000:63bf:3fff:fdd2', '10.0.0.1'],
  ['ISATAP', '2001:db8::5efe:a00:1', '10.0.0.1'],
  ['ISATAP, universal', '2001:db8::200:5efe:7f00:1', '127.0.0.1'],
];

const PUBLIC = [
  '2606:4700:4700::1111',
  '2001:4860:4860::8888',
  '2a00:1450:4001:82b::200e',
  '64:ff9b::808:808', // NAT64 of 8.8.8.8
  '2002:808:808::1', // 6to4 of 8.8.8.8
  '2001:0:4136:e378:8000:63bf:3fff:fdd2', // Teredo: server 65.54.227.120, client 192.0.2.45
  '::ffff:8.8.8.8',
  '2001:db8::200:5efe:808:808',
];

describe('IPv6 forms that carry an IPv4 address', () => {
  it.each(REFUSED_FORMS)('%s (%s) is refused, naming what it carries', (_form, address, carried) => {
    const refusal = refusalOf(address, STRICT_POLICY);
    expect(refusal).toMatch(/^refused address /);
    if (carried !== null) expect(refusal).toContain(`carrying ${carried}`);
  });

  it.each(REFUSED_FORMS)('%s (%s) is refused as a literal URL host by hooks add', (_form, address) => {
    const url = `https://[${address}]:8443/hooks`;
    expect(describeUrlProblem(url, STRICT_POLICY)).toMatch(/^--url: refused address /);
  });

  it('lets public IPv6 addresses through, and the same forms carrying public IPv4 addresses', () => {
    for (const address of PUBLIC) {
      expect(refusalOf(address, STRICT_POLICY), address).toBeNull();
      expect(describeUrlProblem(`https://[${address}]/h`, STRICT_POLICY), address).toBeNull();
    }
  });

  it('decodes each embedding exactly, Teredo into its server and its client', () => {
    expect(embeddedIpv4('::7f00:1')).toEqual(['127.0.0.1']);
    expect(embeddedIpv4('::ffff:7f00:1')).toEqual(['127.0.0.1']);
    expect(embeddedIpv4('64:ff9b::c000:221')).toEqual(['192.0.2.33']);
    expect(embeddedIpv4('2002:c000:221:1::1')).toEqual(['192.0.2.33']);
    expect(embeddedIpv4('2001:0:4136:e378:8000:63bf:3fff:fdd2')).toEqual(['65.54.227.120', '192.0.2.45']);
    expect(embeddedIpv4('fe80::5efe:c000:221%eth0')).toEqual(['192.0.2.33']);
    for (const plain of ['2606:4700:4700::1111', '2001:db8:1::1', '127.0.0.1', 'example.com'])
      expect(embeddedIpv4(plain), plain).toEqual([]);
  });

  it('an operator who allows an address or network allows the forms carrying it, and no other', () => {
    const policy = parseAllowHosts('127.0.0.1, 64:ff9b:1::/48');
    expect(refusalOf('64:ff9b::7f00:1', policy)).toBeNull();
    expect(refusalOf('2002:7f00:1::', policy)).toBeNull();
    expect(refusalOf('64:ff9b:1::a00:1', policy)).toBeNull();
    expect(refusalOf('64:ff9b::7f00:2', policy)).toMatch(/carrying 127\.0\.0\.2/);
    // Teredo: the client being allowed does not lift a refused server.
    expect(refusalOf('2001:0:a00:1:8000:63bf:80ff:fffe', policy)).toMatch(/\(carrying 10\.0\.0\.1\):/);
  });
});
