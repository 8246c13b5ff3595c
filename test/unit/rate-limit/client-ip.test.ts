import { describe, expect, it } from 'vitest';
import { normalizeIp, rateLimitSubject, resolveClientIp } from '../../../src/rate-limit/client-ip.ts';

// client 203.0.113.7 -> CDN 198.51.100.2 -> load balancer 10.0.0.5 -> server; 6.6.6.6 is spoofed.
const CHAIN = '6.6.6.6, 203.0.113.7, 198.51.100.2';

describe('resolveClientIp', () => {
  it('uses the socket address with 0 trusted hops, whatever the header says', () => {
    expect(resolveClientIp('10.0.0.5', CHAIN, 0)).toBe('10.0.0.5');
    expect(resolveClientIp('::ffff:192.0.2.1', '1.1.1.1', 0)).toBe('192.0.2.1');
  });

  it('takes the entry appended by the outermost trusted proxy', () => {
    expect(resolveClientIp('10.0.0.5', CHAIN, 1)).toBe('198.51.100.2');
    expect(resolveClientIp('10.0.0.5', CHAIN, 2)).toBe('203.0.113.7');
  });

  it('never returns a client-written entry left of the trusted hops', () => {
    expect(resolveClientIp('10.0.0.5', '6.6.6.6, 7.7.7.7, 203.0.113.7', 1)).toBe('203.0.113.7');
    expect(resolveClientIp('10.0.0.5', '6.6.6.6,203.0.113.7,198.51.100.2', 2)).toBe('203.0.113.7');
  });

  it('stops at the last trusted address when entries are missing', () => {
    expect(resolveClientIp('10.0.0.5', '203.0.113.7', 2)).toBe('203.0.113.7');
    expect(resolveClientIp('10.0.0.5', null, 1)).toBe('10.0.0.5');
    expect(resolveClientIp('10.0.0.5', '', 2)).toBe('10.0.0.5');
    expect(resolveClientIp('10.0.0.5', CHAIN, 5)).toBe('6.6.6.6');
  });

  it('stops at the last trusted address when an entry is not an IP address', () => {
    expect(resolveClientIp('10.0.0.5', '6.6.6.6, unknown, 198.51.100.2', 2)).toBe('198.51.100.2');
    expect(resolveClientIp('10.0.0.5', '6.6.6.6, 203.0.113.7, ', 2)).toBe('10.0.0.5');
    expect(resolveClientIp('10.0.0.5', '203.0.113.7, <script>', 1)).toBe('10.0.0.5');
  });

  it('handles IPv6 sockets and entries, with ports, brackets, zones and mapped IPv4', () => {
    expect(resolveClientIp('::ffff:10.0.0.5', '2001:DB8:0:0:0:0:0:7, [2001:db8::2]:8443', 1)).toBe(
      '2001:db8::2',
    );
    expect(resolveClientIp('2001:db8::5', '2001:DB8:0:0:0:0:0:7, [2001:db8::2]:8443', 2)).toBe('2001:db8::7');
    expect(resolveClientIp('2001:db8::5', '::ffff:203.0.113.7, 2001:db8::2', 2)).toBe('203.0.113.7');
    expect(resolveClientIp('fe80::1%eth0', null, 0)).toBe('fe80::1');
  });

  it('rejects a hop count that is not a whole number', () => {
    expect(() => resolveClientIp('10.0.0.5', CHAIN, -1)).toThrow(RangeError);
    expect(() => resolveClientIp('10.0.0.5', CHAIN, 1.5)).toThrow(RangeError);
  });
});

describe('normalizeIp', () => {
  it('puts addresses in one canonical form', () => {
    expect(normalizeIp(' 192.0.2.1 ')).toBe('192.0.2.1');
    expect(normalizeIp('192.0.2.1:443')).toBe('192.0.2.1');
    expect(normalizeIp('::FFFF:C000:0201')).toBe('192.0.2.1');
    expect(normalizeIp('2001:0db8:0000:0000:0000:0000:0000:0001')).toBe('2001:db8::1');
    expect(normalizeIp('::1')).toBe('::1');
  });

  it('returns null for what is not an address', () => {
    for (const text of ['', 'unknown', '192.0.2', '192.0.2.1.5', '300.1.1.1', 'gggg::1', '[::1', '_hidden']) {
      expect(normalizeIp(text)).toBeNull();
    }
  });
});

describe('rateLimitSubject', () => {
  it('counts IPv4 per address, and IPv4-mapped IPv6 in any spelling as that IPv4 address', () => {
    expect(rateLimitSubject('203.0.113.7')).toBe('203.0.113.7');
    expect(rateLimitSubject('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(rateLimitSubject('::FFFF:cb00:7107')).toBe('203.0.113.7');
    expect(rateLimitSubject('0:0:0:0:0:ffff:203.0.113.7', 128)).toBe('203.0.113.7');
    expect(rateLimitSubject('203.0.113.7', 1)).toBe('203.0.113.7');
  });

  it('counts IPv6 by its /64 by default, whatever the spelling of the address', () => {
    const subject = '2001:db8:0:1::/64';
    for (const address of [
      '2001:db8:0:1::1',
      '2001:db8:0:1:ffff:ffff:ffff:ffff',
      '2001:DB8:0000:0001:0:0:0:7',
      '[2001:db8:0:1::2]:8443',
      '2001:db8:0:1:a:b:c:d',
      '2001:db8:0:1::',
    ])
      expect(rateLimitSubject(address), address).toBe(subject);
    expect(rateLimitSubject('2001:db8:0:2::1')).toBe('2001:db8:0:2::/64');
    expect(rateLimitSubject('2001:db8:0:0:1::1')).toBe('2001:db8::/64');
    expect(rateLimitSubject('::1')).toBe('::/64');
    expect(rateLimitSubject('fe80::1%eth0')).toBe('fe80::/64');
  });

  it('masks at any prefix length, including inside a group', () => {
    expect(rateLimitSubject('2001:db8:1234:5678::1', 48)).toBe('2001:db8:1234::/48');
    expect(rateLimitSubject('2001:db8:1234:5678::1', 56)).toBe('2001:db8:1234:5600::/56');
    expect(rateLimitSubject('2001:db8:1234:56ff::1', 60)).toBe('2001:db8:1234:56f0::/60');
    expect(rateLimitSubject('2001:db8:1234:5678::1', 32)).toBe('2001:db8::/32');
    expect(rateLimitSubject('ffff:ffff::', 1)).toBe('8000::/1');
    expect(rateLimitSubject('7fff:ffff::', 1)).toBe('::/1');
    expect(rateLimitSubject('2001:db8::ffff:ffff', 127)).toBe('2001:db8::ffff:fffe/127');
    expect(rateLimitSubject('2001:db8::ffff:ffff', 112)).toBe('2001:db8::ffff:0/112');
    // 128: every address is its own client (the behaviour before prefixes).
    expect(rateLimitSubject('2001:DB8::1', 128)).toBe('2001:db8::1');
  });

  it('agrees with a bit-by-bit reference for random addresses and prefixes', () => {
    const reference = (groups: number[], prefix: number) => {
      let bits = groups.map((g) => g.toString(2).padStart(16, '0')).join('');
      bits = bits.slice(0, prefix).padEnd(128, '0');
      const masked = Array.from({ length: 8 }, (_, i) => Number.parseInt(bits.slice(i * 16, i * 16 + 16), 2));
      return `${normalizeIp(masked.map((g) => g.toString(16)).join(':'))}/${prefix}`;
    };
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    for (let n = 0; n < 2000; n++) {
      // Leading groups of 0x2000-0xffff: never an IPv4-mapped address.
      const groups = Array.from({ length: 8 }, (_, i) =>
        i === 0
          ? 0x2000 + Math.floor(random() * 0xe000)
          : random() < 0.3
            ? 0
            : Math.floor(random() * 0x10000),
      );
      const prefix = 1 + Math.floor(random() * 127);
      const address = groups.map((g) => g.toString(16)).join(':');
      expect(rateLimitSubject(address, prefix), `${address}/${prefix}`).toBe(reference(groups, prefix));
    }
  });

  it('leaves what is not an IP address as it is, and refuses a prefix outside 1-128', () => {
    expect(rateLimitSubject('unknown')).toBe('unknown');
    expect(() => rateLimitSubject('2001:db8::1', 0)).toThrow(RangeError);
    expect(() => rateLimitSubject('2001:db8::1', 129)).toThrow(RangeError);
    expect(() => rateLimitSubject('2001:db8::1', 64.5)).toThrow(RangeError);
  });
});
