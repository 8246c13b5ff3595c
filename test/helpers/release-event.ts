import type { ReleaseEvent } from '../../src/events/event.ts';

/** A `series.released` event of ecb.USD in one fixed snapshot, with the given fields instead. */
export function releaseEvent(fields: Partial<ReleaseEvent>): ReleaseEvent {
  return {
    id: '20261127T020000Z-1a2b3c4d:1',
    type: 'series.released',
    snapshot: '20261127T020000Z-1a2b3c4d',
    source: 'ecb',
    series: 'ecb.USD',
    observed_at: '2026-11-27T02:00:00Z',
    public: true,
    data: {},
    ...fields,
  };
}
