import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load-config.ts';
import { matchesSeries } from '../../../src/events/series-pattern.ts';
import {
  describeUrlProblem,
  parseAllowHosts,
  refusalOf,
  STRICT_POLICY,
} from '../../../src/hooks/address-policy.ts';
import { mayReceive } from '../../../src/hooks/event-filter.ts';
import { isAfter } from '../../../src/hooks/manage-hooks.ts';
import { decide } from '../../../src/hooks/record-outcome.ts';
import {
  DEFAULT_RETRY_SCHEDULE_MS,
  delayBeforeRetry,
  parseRetryAfter,
  parseRetrySchedule,
} from '../../../src/hooks/retry-schedule.ts';
import { ConfigError } from '../../../src/lib/config-error.ts';
import { releaseEvent } from '../../helpers/release-event.ts';

/** The pure rules of webhook delivery (issue 24): schedule, Retry-After, outcomes, SSRF, filters. */

const NOW = new Date('2026-11-27T02:00:00Z');

const event = releaseEvent;

describe('retry schedule', () => {
  it('is the Standard Webhooks schedule: 8 attempts, waits 5 s to 10 h, ±20% jitter', () => {
    expect(DEFAULT_RETRY_SCHEDULE_MS).toEqual([5e3, 3e5, 18e5, 72e5, 18e6, 36e6, 36e6]);
    expect(delayBeforeRetry(DEFAULT_RETRY_SCHEDULE_MS, 1, () => 0)).toBe(4_000);
    expect(delayBeforeRetry(DEFAULT_RETRY_SCHEDULE_MS, 1, () => 0.5)).toBe(5_000);
    expect(delayBeforeRetry(DEFAULT_RETRY_SCHEDULE_MS, 1, () => 0.999_999)).toBe(6_000);
    expect(delayBeforeRetry(DEFAULT_RETRY_SCHEDULE_MS, 7, () => 0.5)).toBe(36e6);
    expect(delayBeforeRetry(DEFAULT_RETRY_SCHEDULE_MS, 8, () => 0.5)).toBeNull();
  });

  it('reads MMDS_HOOKS_RETRY_SCHEDULE with units and refuses anything else', () => {
    expect(parseRetrySchedule('5s,5m,30m,2h')).toEqual([5e3, 3e5, 18e5, 72e5]);
    expect(parseRetrySchedule('20, 40ms,1s')).toEqual([20, 40, 1000]);
    for (const bad of ['', '5x', '-1', '1.5s', '5s,,5m'])
      expect(() => parseRetrySchedule(bad), bad).toThrow(/MMDS_HOOKS_RETRY_SCHEDULE/);
  });

  it('is configured through MMDS_HOOKS_*; a bad value is a configuration error', () => {
    expect(loadConfig({}, '/tmp').hooks).toEqual({
      allowHosts: '',
      retrySchedule: null,
      timeoutMs: 15_000,
      leaseMs: null,
      pollMs: 1_000,
    });
    const config = loadConfig(
      {
        MMDS_HOOKS_ALLOW_HOSTS: '127.0.0.1',
        MMDS_HOOKS_RETRY_SCHEDULE: '1s,2m',
        MMDS_HOOKS_TIMEOUT_MS: '500',
        MMDS_HOOKS_LEASE_MS: '2000',
        MMDS_HOOKS_POLL_MS: '50',
      },
      '/tmp',
    );
    expect(config.hooks).toEqual({
      allowHosts: '127.0.0.1',
      retrySchedule: [1000, 120_000],
      timeoutMs: 500,
      leaseMs: 2000,
      pollMs: 50,
    });
    expect(config.warnings).toEqual([]);
    for (const env of [
      { MMDS_HOOKS_ALLOW_HOSTS: '10.0.0.0/40' },
      { MMDS_HOOKS_RETRY_SCHEDULE: 'soon' },
      { MMDS_HOOKS_TIMEOUT_MS: '0' },
      { MMDS_HOOKS_POLL_MS: '0' },
      { MMDS_HOOKS_LEASE_MS: 'long' },
      // A lease that can run out during an attempt would let a second deliverer overtake it.
      { MMDS_HOOKS_LEASE_MS: '15000' },
      { MMDS_HOOKS_LEASE_MS: '1000', MMDS_HOOKS_TIMEOUT_MS: '2000' },
    ])
      expect(() => loadConfig(env, '/tmp'), JSON.stringify(env)).toThrow(ConfigError);
  });

  it('reads Retry-After as seconds or an HTTP date, at most a day', () => {
    expect(parseRetryAfter('3', NOW)).toBe(3000);
    expect(parseRetryAfter('Fri, 27 Nov 2026 02:00:30 GMT', NOW)).toBe(30_000);
    expect(parseRetryAfter('Fri, 27 Nov 2026 01:00:00 GMT', NOW)).toBe(0);
    expect(parseRetryAfter('9999999', NOW)).toBe(86_400_000);
    expect(parseRetryAfter('soon', NOW)).toBeNull();
    expect(parseRetryAfter(null, NOW)).toBeNull();
  });
});

describe('what an attempt leads to', () => {
  const schedule = [100, 200];
  const half = () => 0.5;
  it('2xx delivers; 410 disables; 4xx but 408 and 429 dead-letters at once', () => {
    expect(decide({ kind: 'delivered', status: 204 }, 0, schedule, NOW, half)).toEqual({ kind: 'delivered' });
    expect(decide({ kind: 'http', status: 410, retryAfter: null }, 0, schedule, NOW, half).kind).toBe(
      'disable',
    );
    for (const status of [400, 401, 403, 404, 413, 422])
      expect(decide({ kind: 'http', status, retryAfter: null }, 0, schedule, NOW, half)).toEqual({
        kind: 'dead',
        reason: `HTTP ${status}`,
      });
  });

  it('408, 429, 5xx, 3xx and no answer are retried on the schedule, then dead-lettered', () => {
    for (const status of [408, 429, 500, 503, 302])
      expect(decide({ kind: 'http', status, retryAfter: null }, 0, schedule, NOW, half)).toEqual({
        kind: 'retry',
        delayMs: 100,
        error: `HTTP ${status}`,
      });
    const timeout = {
      kind: 'network',
      message: 'no answer within 10 ms',
      code: 'ETIMEOUT',
      refused: false,
    } as const;
    expect(decide(timeout, 1, schedule, NOW, half)).toEqual({
      kind: 'retry',
      delayMs: 200,
      error: timeout.message,
    });
    expect(decide(timeout, 2, schedule, NOW, half)).toEqual({
      kind: 'dead',
      reason: 'no answer within 10 ms (gave up after 3 attempts)',
    });
  });

  it('Retry-After replaces the scheduled wait; a refused address is not retried', () => {
    expect(decide({ kind: 'http', status: 503, retryAfter: '7' }, 0, schedule, NOW, half)).toMatchObject({
      kind: 'retry',
      delayMs: 7000,
    });
    expect(decide({ kind: 'http', status: 429, retryAfter: '7' }, 2, schedule, NOW, half).kind).toBe('dead');
    expect(
      decide(
        { kind: 'network', message: 'refused address 10.0.0.1', code: 'EREFUSEDADDRESS', refused: true },
        0,
        schedule,
        NOW,
        half,
      ),
    ).toEqual({ kind: 'dead', reason: 'refused address 10.0.0.1' });
  });
});

describe('SSRF address policy', () => {
  it('refuses loopback, private, link-local, metadata and unspecified addresses', () => {
    for (const address of [
      '127.0.0.1',
      '127.255.0.9',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '169.254.1.1',
      '100.64.0.1',
      '0.0.0.0',
      '::',
      '::1',
      'fc00::1',
      'fd00:ec2::254',
      'fe80::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '224.0.0.1',
    ])
      expect(refusalOf(address, STRICT_POLICY), address).toMatch(/^refused address/);
    for (const address of ['93.184.215.14', '8.8.8.8', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8'])
      expect(refusalOf(address, STRICT_POLICY), address).toBeNull();
  });

  it('lets the operator allow addresses, networks and host names', () => {
    const policy = parseAllowHosts(' 127.0.0.1, 10.1.0.0/16 ,::1, hooks.internal');
    expect(refusalOf('127.0.0.1', policy)).toBeNull();
    expect(refusalOf('::ffff:127.0.0.1', policy)).toBeNull();
    expect(refusalOf('::1', policy)).toBeNull();
    expect(refusalOf('10.1.9.9', policy)).toBeNull();
    expect(refusalOf('10.2.0.1', policy)).toMatch(/^refused/);
    expect(refusalOf('127.0.0.2', policy)).toMatch(/^refused/);
    expect(describeUrlProblem('http://hooks.internal/x', policy)).toBeNull();
    expect(describeUrlProblem('http://127.0.0.1:8080/x', policy)).toBeNull();
    for (const bad of ['10.0.0.0/33', 'not a host', '1.2.3.4/8/1'])
      expect(() => parseAllowHosts(bad), bad).toThrow(/MMDS_HOOKS_ALLOW_HOSTS/);
  });

  it('checks subscription URLs: https, no credentials, no literal refused address', () => {
    expect(describeUrlProblem('https://example.com/hooks?x=1', STRICT_POLICY)).toBeNull();
    expect(describeUrlProblem('http://example.com/hooks', STRICT_POLICY)).toMatch(/must use https/);
    expect(describeUrlProblem('https://user:pw@example.com/', STRICT_POLICY)).toMatch(/user name/);
    expect(describeUrlProblem('https://169.254.169.254/latest', STRICT_POLICY)).toMatch(/refused address/);
    expect(describeUrlProblem('https://[::1]:8443/', STRICT_POLICY)).toMatch(/refused address/);
    expect(describeUrlProblem('example.com', STRICT_POLICY)).toMatch(/absolute https URL/);
  });
});

describe('which events a subscription receives', () => {
  it('matches series patterns, and release events by the source part', () => {
    expect(matchesSeries(['ecb.*'], event({}))).toBe(true);
    expect(matchesSeries(['bls.CES*'], event({ source: 'bls', series: 'bls.CES0000000001' }))).toBe(true);
    expect(matchesSeries(['bls.CES*01'], event({ source: 'bls', series: 'bls.CES0000000002' }))).toBe(false);
    expect(matchesSeries(['ecb.USD'], event({ series: 'ecb.USDX' }))).toBe(false);
    expect(matchesSeries(['*'], event({ source: 'cftc', series: null, type: 'release.published' }))).toBe(
      true,
    );
    expect(matchesSeries(['ecb.*'], event({ series: null, type: 'release.published' }))).toBe(true);
    expect(matchesSeries(['bls.*'], event({ series: null, type: 'release.published' }))).toBe(false);
  });

  it('public events reach any key; others need their scopes (observations:read by default)', () => {
    expect(mayReceive(event({}), ['cot:history'])).toBe(true);
    expect(mayReceive(event({ public: false }), ['cot:history'])).toBe(false);
    expect(mayReceive(event({ public: false }), ['observations:read'])).toBe(true);
    const old = {
      ...event({ public: false }),
      scopes: ['observations:read', 'cot:history'] as Array<'observations:read' | 'cot:history'>,
    };
    expect(mayReceive(old, ['observations:read'])).toBe(false);
    expect(mayReceive(old, ['observations:read', 'cot:history'])).toBe(true);
  });

  it('orders event ids by snapshot, then by number', () => {
    expect(isAfter('20261127T020000Z-1a2b3c4d:10', '20261127T020000Z-1a2b3c4d:9')).toBe(true);
    expect(isAfter('20261127T020000Z-1a2b3c4d:1', '20261126T020000Z-ffffffff:30')).toBe(true);
    expect(isAfter('20261127T020000Z-1a2b3c4d:2', '20261127T020000Z-1a2b3c4d:2')).toBe(false);
  });
});
