import { describe, expect, it } from 'vitest';
import { normalizeIp, resolveClientIp } from '../../../src/rate-limit/client-ip.ts';

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
