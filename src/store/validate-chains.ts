/** The fields of a fact that its revision chain is made of. */
export interface ChainRow {
  id: string;
  series_key: string;
  period: string;
  revision_number: number;
  supersedes_id: string | null;
  observed_at: string;
}

/** One broken rule of a revision chain. */
export interface ChainProblem {
  series_key: string;
  period: string;
  message: string;
}

/**
 * Checks every revision chain: ids unique, revision 1 supersedes nothing, each later revision
 * supersedes the immediately previous revision of the same series and period, numbers run
 * 1, 2, 3 without gaps or repeats (a repeat is a fork), and `observed_at` never decreases.
 */
export function validateChains(rows: Iterable<ChainRow>): ChainProblem[] {
  const problems: ChainProblem[] = [];
  const ids = new Set<string>();
  const chains = new Map<string, ChainRow[]>();
  for (const row of rows) {
    if (ids.has(row.id)) {
      problems.push({ series_key: row.series_key, period: row.period, message: `duplicate id ${row.id}` });
    }
    ids.add(row.id);
    const key = `${row.series_key}\u0000${row.period}`;
    const chain = chains.get(key);
    if (chain) chain.push(row);
    else chains.set(key, [row]);
  }
  for (const chain of chains.values()) problems.push(...validateChain(chain));
  return problems;
}

function validateChain(chain: ChainRow[]): ChainProblem[] {
  const problems: ChainProblem[] = [];
  const { series_key, period } = chain[0]!;
  const report = (message: string) => problems.push({ series_key, period, message });
  const sorted = [...chain].sort((a, b) => a.revision_number - b.revision_number);
  sorted.forEach((row, index) => {
    const expected = index + 1;
    if (row.revision_number !== expected) {
      report(`revision ${row.revision_number} where ${expected} was expected (gap, repeat or fork)`);
      return;
    }
    const previous = sorted[index - 1];
    if (!previous) {
      if (row.supersedes_id !== null) report(`revision 1 (${row.id}) supersedes ${row.supersedes_id}`);
      return;
    }
    if (row.supersedes_id !== previous.id) {
      report(
        `revision ${expected} (${row.id}) supersedes ${row.supersedes_id ?? 'nothing'}, not ${previous.id}`,
      );
    }
    if (row.observed_at < previous.observed_at) {
      report(
        `revision ${expected} observed at ${row.observed_at}, before revision ${index} (${previous.observed_at})`,
      );
    }
  });
  return problems;
}
