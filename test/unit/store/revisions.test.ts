import { describe, expect, it } from 'vitest';
import { factKey, type InForce, planRevisions } from '../../../src/store/revisions.ts';

const candidate = (period: string, fingerprint: string, observed_at: string) => ({
  series_key: 'bls.X',
  period,
  fingerprint,
  observed_at,
});

describe('planRevisions', () => {
  it('starts a chain at revision 1 with no predecessor', () => {
    const [decision] = planRevisions([candidate('2025-01', '1', '2025-02-07T13:30:00Z')], new Map(), 'obs');
    expect(decision).toMatchObject({ kind: 'append', revision_number: 1, supersedes_id: null });
  });

  it('adds nothing for the value in force, and a revision for a different one', () => {
    const inForce = new Map<string, InForce>([
      [
        factKey('bls.X', '2025-01'),
        { id: 'obs_a', revision_number: 1, fingerprint: '1', observed_at: '2025-02-07T13:30:00Z' },
      ],
    ]);
    const decisions = planRevisions(
      [candidate('2025-01', '1', '2025-03-07T13:30:00Z'), candidate('2025-01', '2', '2025-03-07T13:30:00Z')],
      inForce,
      'obs',
    );
    expect(decisions[0]).toEqual({ kind: 'unchanged' });
    expect(decisions[1]).toMatchObject({ kind: 'append', revision_number: 2, supersedes_id: 'obs_a' });
  });

  it('chains several vintages of one file in observed_at order, whatever the input order', () => {
    const decisions = planRevisions(
      [
        candidate('2025-12', '-17', '2026-03-06T13:30:00Z'),
        candidate('2025-12', '50', '2026-01-09T13:30:00Z'),
        candidate('2025-12', '48', '2026-02-11T13:30:00Z'),
      ],
      new Map(),
      'obs',
    );
    const byRevision = decisions.map((d) => (d.kind === 'append' ? d.revision_number : 0));
    expect(byRevision).toEqual([3, 1, 2]);
    const first = decisions[1]!;
    const second = decisions[2]!;
    expect(second.kind === 'append' && first.kind === 'append' && second.supersedes_id === first.id).toBe(
      true,
    );
  });

  it('reports older knowledge as stale instead of splicing it into a chain', () => {
    const inForce = new Map<string, InForce>([
      [
        factKey('bls.X', '2025-01'),
        { id: 'obs_a', revision_number: 2, fingerprint: '5', observed_at: '2026-01-01T00:00:00Z' },
      ],
    ]);
    const [decision] = planRevisions([candidate('2025-01', '4', '2025-06-01T00:00:00Z')], inForce, 'obs');
    expect(decision).toEqual({ kind: 'stale', in_force_observed_at: '2026-01-01T00:00:00Z' });
  });

  it('gives the same ids for the same history', () => {
    const run = () => planRevisions([candidate('2025-01', '1', '2025-02-07T13:30:00Z')], new Map(), 'obs');
    expect(run()).toEqual(run());
  });
});
