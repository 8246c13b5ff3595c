/**
 * The rows of the settings table (settings.ts) that only `mmds serve` and `mmds deliver` read:
 * event streams, webhook delivery and the revision cache. In the order loadConfig reads them.
 */
import { parseAllowHosts } from '../hooks/address-policy.ts';
import {
  DEFAULT_ATTEMPT_TIMEOUT_MS,
  DEFAULT_RETRY_SCHEDULE_MS,
  parseRetrySchedule,
} from '../hooks/retry-schedule.ts';
import { ConfigError } from '../lib/config-error.ts';
import { DEFAULT_REVISION_CACHE_MB } from '../query/revision-cache-size.ts';
import { integer, parsed, type Setting } from './setting.ts';

const HOUR_MS = 3_600_000;

/** A wait as MMDS_HOOKS_RETRY_SCHEDULE spells it: 300000 is `5m`. */
function formatWait(ms: number): string {
  for (const [unit, size] of [
    ['h', HOUR_MS],
    ['m', 60_000],
    ['s', 1_000],
  ] as const)
    if (ms % size === 0) return `${ms / size}${unit}`;
  return String(ms);
}

export const SERVE_SETTINGS: readonly Setting[] = [
  integer({
    name: 'eventStreams.heartbeatMs',
    variable: 'MMDS_EVENTS_HEARTBEAT_MS',
    fallback: 15_000,
    bounds: [10, HOUR_MS],
    help: 'a comment on open event streams every this many ms',
  }),
  integer({
    name: 'eventStreams.perKey',
    variable: 'MMDS_EVENTS_STREAMS_PER_KEY',
    fallback: 5,
    bounds: [0, 10_000],
    help: 'open event streams per API key and instance',
  }),
  integer({
    name: 'eventStreams.perAddress',
    variable: 'MMDS_EVENTS_STREAMS_PER_ADDRESS',
    fallback: 2,
    bounds: [0, 10_000],
    help: 'open anonymous event streams per address and instance',
  }),
  integer({
    name: 'eventStreams.max',
    variable: 'MMDS_EVENTS_STREAMS_MAX',
    fallback: 500,
    bounds: [0, 100_000],
    help: 'open event streams of one instance, whoever opened them',
  }),
  integer({
    name: 'eventStreams.drainMs',
    variable: 'MMDS_EVENTS_DRAIN_MS',
    fallback: 30_000,
    bounds: [10, HOUR_MS],
    help: 'an event stream whose client takes nothing of what waits for it this many ms is cut',
  }),
  integer({
    name: 'eventStreams.delayMinutes',
    variable: 'MMDS_EVENTS_DELAY_MINUTES',
    fallback: 30,
    bounds: [0, 7 * 24 * 60],
    help: "minutes after an expected release's time that mmds serve announces it as release.delayed when it has not landed",
    more: '0: never',
  }),
  integer({
    name: 'eventStreams.delayCheckMs',
    variable: 'MMDS_EVENTS_DELAY_CHECK_MS',
    fallback: 60_000,
    bounds: [10, HOUR_MS],
    help: 'how often mmds serve checks for delayed releases, in ms',
  }),
  parsed({
    name: 'hooks.allowHosts',
    variable: 'MMDS_HOOKS_ALLOW_HOSTS',
    default: '',
    help: 'hosts, addresses, networks webhooks may reach although loopback or private (e.g. 127.0.0.1,hooks.internal,10.1.0.0/16); http allowed for them',
    parse: (raw) => {
      const allowHosts = raw ?? '';
      parseAllowHosts(allowHosts);
      return allowHosts;
    },
  }),
  integer({
    name: 'hooks.timeoutMs',
    variable: 'MMDS_HOOKS_TIMEOUT_MS',
    fallback: DEFAULT_ATTEMPT_TIMEOUT_MS,
    bounds: [100, 600_000],
    help: 'time-out of one webhook attempt in ms',
  }),
  integer({
    name: 'hooks.leaseMs',
    variable: 'MMDS_HOOKS_LEASE_MS',
    // null: the deliverer's default (src/hooks/deliverer.ts).
    fallback: null,
    shown: '60000',
    bounds: [200, HOUR_MS],
    help: "how long a deliverer holds a subscription unrenewed: another instance takes over a killed one's after it",
    more: 'longer than the time-out',
    // A lease that can run out during an attempt would let a second instance post the same
    // subscription's next event meanwhile: out of order.
    check: (values) => {
      const lease = values['hooks.leaseMs'] as number | null;
      const timeout = values['hooks.timeoutMs'] as number;
      if (lease !== null && lease <= timeout)
        throw new ConfigError(
          `MMDS_HOOKS_LEASE_MS (${lease}) must be longer than MMDS_HOOKS_TIMEOUT_MS (${timeout})`,
        );
    },
  }),
  parsed({
    name: 'hooks.retrySchedule',
    variable: 'MMDS_HOOKS_RETRY_SCHEDULE',
    default: DEFAULT_RETRY_SCHEDULE_MS.map(formatWait).join(','),
    help: 'waits before each webhook retry',
    parse: (raw) => (raw ? Object.freeze(parseRetrySchedule(raw)) : null),
  }),
  integer({
    name: 'hooks.pollMs',
    variable: 'MMDS_HOOKS_POLL_MS',
    fallback: 1_000,
    bounds: [10, 600_000],
    help: 'wait between two delivery passes over the subscriptions, in ms',
  }),
  integer({
    name: 'revisionCacheMb',
    variable: 'MMDS_REVISION_CACHE_MB',
    fallback: DEFAULT_REVISION_CACHE_MB,
    bounds: [0, 1_000_000],
    help: 'megabytes of series revisions serve keeps in memory for as_of pages',
    more: '0: none, every page read with DuckDB',
  }),
];
