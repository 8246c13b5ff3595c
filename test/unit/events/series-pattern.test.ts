import { describe, expect, it } from 'vitest';
import { EVENTS_PARAMS } from '../../../src/contract/schemas/events.ts';
import { EVENT_TYPES, type ReleaseEvent } from '../../../src/events/event.ts';
import { eventFilter } from '../../../src/events/event-filter.ts';
import { describePatternProblem, matchesSeries } from '../../../src/events/series-pattern.ts';
import { isForHook } from '../../../src/hooks/event-filter.ts';
import type { HookRecord } from '../../../src/hooks/subscription-record.ts';
import { releaseEvent } from '../../helpers/release-event.ts';

/**
 * One series-pattern rule (src/events/series-pattern.ts) for the `series` filter of
 * /api/v1/events and `mmds hooks add --series`: the same patterns are accepted, with the same
 * meaning, by the stream's filter and by a subscription.
 */

const event = releaseEvent;

const EVENTS = {
  ecbUsd: event({}),
  blsCes: event({ source: 'bls', series: 'bls.CES0000000001' }),
  cot: event({ source: 'cftc', series: 'cftc.043602.tff', type: 'series.revised' }),
  ecbRelease: event({ series: null, type: 'release.published' }),
  blsDelayed: event({ source: 'bls', series: null, type: 'release.delayed' }),
};
type Name = keyof typeof EVENTS;

/** What each pattern means: the events (of EVENTS) it matches. */
const MEANING: Array<[string, Name[]]> = [
  ['*', ['ecbUsd', 'blsCes', 'cot', 'ecbRelease', 'blsDelayed']],
  ['ecb.*', ['ecbUsd', 'ecbRelease']],
  ['bls.CES*', ['blsCes', 'blsDelayed']],
  ['bls.CES*01', ['blsCes', 'blsDelayed']],
  ['bls.CES*02', ['blsDelayed']],
  ['ecb.USD', ['ecbUsd', 'ecbRelease']],
  ['ecb.US', ['ecbRelease']],
  ['cftc.*.tff', ['cot']],
  ['*.USD', ['ecbUsd', 'ecbRelease', 'blsDelayed']],
  ['bls*', ['blsCes', 'blsDelayed']],
];

describe('series patterns: one rule for SSE and webhooks', () => {
  it('gives each pattern one meaning, in the stream filter and in a subscription alike', () => {
    const view = { keyed: true, cotHistory: true };
    const scopes = ['observations:read', 'cot:history'];
    for (const [pattern, expected] of MEANING) {
      const hook = { types: [...EVENT_TYPES], series: [pattern], starts_at: null } as unknown as HookRecord;
      const stream = eventFilter({ series: pattern }, view);
      for (const [name, subject] of Object.entries(EVENTS) as Array<[Name, ReleaseEvent]>) {
        const want = expected.includes(name);
        expect(matchesSeries([pattern], subject), `${pattern} ${name}`).toBe(want);
        expect(stream(subject), `stream ${pattern} ${name}`).toBe(want);
        expect(isForHook(hook, scopes, subject), `hook ${pattern} ${name}`).toBe(want);
      }
    }
  });

  it('accepts the same patterns in the query and in hooks add', () => {
    const candidates = [
      '*',
      'ecb.*',
      'bls.CES*',
      'cftc.043602.tff',
      'fred:x.A-1_b',
      'bls*',
      'x'.repeat(200),
      'x'.repeat(201),
      '',
      'ecb USD',
      'ecb.€',
      'ecb/USD',
      'ecb.?',
    ];
    for (const pattern of candidates) {
      const query = EVENTS_PARAMS.series!.schema.safeParse(pattern).success;
      expect(query, JSON.stringify(pattern)).toBe(describePatternProblem(pattern) === null);
    }
    expect(describePatternProblem('*')).toBeNull();
    expect(describePatternProblem('ecb USD')).toMatch(/may hold only/);
    // The query takes up to 20, comma-separated.
    expect(EVENTS_PARAMS.series!.schema.safeParse(Array(20).fill('ecb.*').join(',')).success).toBe(true);
    expect(EVENTS_PARAMS.series!.schema.safeParse(Array(21).fill('ecb.*').join(',')).success).toBe(false);
  });
});
