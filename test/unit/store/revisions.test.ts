import { describe, expect, it } from 'vitest';
import type { KnowledgeMethod, KnowledgeTime } from '../../../src/model/records.ts';
import {
  createFactId,
  type FactCandidate,
  factKey,
  planRevisions,
  type StoredFact,
} from '../../../src/store/revisions.ts';

const KEY = factKey('bls.X', '2025-01');
const T1 = '2025-02-07T13:30:00Z';
const T2 = '2025-03-07T13:30:00Z';
const T3 = '2025-04-04T12:30:00Z';
const COLLECTED = '2025-05-20T09:00:00Z';

function candidate(
  fingerprint: string,
  observed_at: string,
  method: KnowledgeMethod = 'vintage',
  correction?: KnowledgeTime,
): FactCandidate {
  return {
    series_key: 'bls.X',
    period: '2025-01',
    fingerprint,
    observed_at,
    method,
    ...(correction ? { correction } : {}),
  };
}

function stored(...facts: Array<[fingerprint: string, observed_at: string, method: KnowledgeMethod]>) {
  const list: StoredFact[] = facts.map(([fingerprint, observed_at, method], index) => ({
    id: `obs_${index}`,
    fingerprint,
    observed_at,
    method,
    batch_id: `00000${index + 1}-x`,
  }));
  return new Map([[KEY, list]]);
}

describe('planRevisions', () => {
  it('starts a chain with an id derived from content and knowledge time', () => {
    const [decision] = planRevisions([candidate('1', T1)], new Map(), 'obs');
    expect(decision).toEqual({
      kind: 'append',
      id: createFactId('obs', 'bls.X', '2025-01', T1, '1'),
      observed_at: T1,
      method: 'vintage',
      backfill: false,
      corrected: false,
    });
  });

  it('adds nothing for an exact repeat or for a collected value equal to the one in force', () => {
    const decisions = planRevisions(
      [candidate('1', T1), candidate('1', T2, 'collected')],
      stored(['1', T1, 'vintage']),
      'obs',
    );
    expect(decisions).toEqual([{ kind: 'unchanged' }, { kind: 'unchanged' }]);
  });

  it('inserts an older vintage that arrives late where it belongs, marked as a backfill', () => {
    const [decision] = planRevisions([candidate('1', T1)], stored(['2', T2, 'vintage']), 'obs');
    expect(decision).toMatchObject({ kind: 'append', observed_at: T1, backfill: true });
  });

  it('keeps a vintage that repeats the value before it, so a vintage landing between them is right', () => {
    // T1 = 1 is stored; the T3 vintage also says 1; later the T2 vintage says 2. Without the
    // repeat at T3, the log would claim 2 from T2 on, though at T3 the value was 1 again.
    const repeat = planRevisions([candidate('1', T3)], stored(['1', T1, 'vintage']), 'obs');
    expect(repeat[0]).toMatchObject({ kind: 'append', observed_at: T3 });
    const between = planRevisions(
      [candidate('2', T2)],
      stored(['1', T1, 'vintage'], ['1', T3, 'vintage']),
      'obs',
    );
    expect(between[0]).toMatchObject({ kind: 'append', observed_at: T2, backfill: true });
  });

  it('restamps a calendar-dated value that changes a stored one with its correction time', () => {
    const correction: KnowledgeTime = { observed_at: COLLECTED, method: 'collected' };
    const [decision] = planRevisions(
      [candidate('2', T1, 'release_calendar', correction)],
      stored(['1', T1, 'release_calendar']),
      'obs',
    );
    expect(decision).toMatchObject({
      kind: 'append',
      observed_at: COLLECTED,
      method: 'collected',
      corrected: true,
    });
  });

  it('refuses a calendar-dated change when no correction time is known, rather than back-dating it', () => {
    const [decision] = planRevisions(
      [candidate('2', T1, 'release_calendar')],
      stored(['1', T1, 'release_calendar']),
      'obs',
    );
    expect(decision).toMatchObject({ kind: 'refused' });
    expect((decision as { reason: string }).reason).toMatch(/--collected-at/);
  });

  it('takes a calendar-dated value equal to what the store knows now as nothing new', () => {
    // The store has a later vintage with value 2; a first-release claim of 2 cannot move it earlier.
    const [decision] = planRevisions(
      [candidate('2', T1, 'release_calendar')],
      stored(['2', T3, 'vintage']),
      'obs',
    );
    expect(decision).toEqual({ kind: 'unchanged' });
  });

  it('refuses two different values with the same knowledge time and method', () => {
    const [decision] = planRevisions([candidate('2', T1)], stored(['1', T1, 'vintage']), 'obs');
    expect(decision).toMatchObject({ kind: 'refused' });
  });

  it('orders a vintage after a calendar time at the same instant (the more specific claim wins)', () => {
    const [decision] = planRevisions([candidate('2', T1)], stored(['1', T1, 'release_calendar']), 'obs');
    expect(decision).toMatchObject({ kind: 'append', observed_at: T1, backfill: false });
  });

  it('decides the same way whatever order the candidates of one batch come in', () => {
    const forward = planRevisions([candidate('1', T1), candidate('2', T2)], new Map(), 'obs');
    const backward = planRevisions([candidate('2', T2), candidate('1', T1)], new Map(), 'obs');
    expect(backward).toEqual([forward[1], forward[0]]);
  });

  it('refuses a correction not later than the value it corrects, which would otherwise supersede it', () => {
    const stamp = { observed_at: T1, method: 'collected' as const };
    const [atRelease] = planRevisions(
      [candidate('2', T1, 'release_calendar', stamp)],
      stored(['1', T1, 'release_calendar']),
      'obs',
    );
    expect(atRelease).toEqual({
      kind: 'refused',
      reason:
        `bls.X 2025-01: the correction's time ${T1} (collected) is not later than ${T1}, ` +
        'when the value it corrects became known; check --collected-at',
    });
    // An estimated release is a late bound: a correction collected before it is refused too.
    const [beforeEstimate] = planRevisions(
      [candidate('2', T2, 'estimated', { observed_at: T1, method: 'collected' })],
      stored(['1', T2, 'estimated']),
      'obs',
    );
    expect(beforeEstimate).toMatchObject({ kind: 'refused' });
    const [later] = planRevisions(
      [candidate('2', T1, 'release_calendar', { observed_at: COLLECTED, method: 'collected' })],
      stored(['1', T1, 'release_calendar']),
      'obs',
    );
    expect(later).toMatchObject({ kind: 'append', observed_at: COLLECTED, corrected: true });
  });
});
