import type { ObservationRow } from '../query/history.ts';
import type { RevisionRecord } from '../query/revisions.ts';
import { summarisePeriod } from '../query/revisions-compute.ts';
import type { ChartPoint } from './charts/line-chart.ts';

/** Most bars the revision chart draws: the newest periods (20 years of months). */
export const MAX_REVISION_BARS = 240;

/**
 * The bars of a macro series page's revision chart: per period the total revision (latest −
 * first release) as the revisions endpoints compute it (shape=list), from the first period that
 * was ever revised to the newest period, at most the newest MAX_REVISION_BARS. Empty when no
 * period was revised.
 */
export function revisionBarPoints(rows: readonly ObservationRow[]): ChartPoint[] {
  const byPeriod = new Map<string, RevisionRecord[]>();
  for (const row of rows) {
    const records = byPeriod.get(row.period) ?? [];
    records.push({
      period: row.period,
      revision_number: row.revision_number,
      value: row.value,
      observed_at: row.observed_at,
      observed_at_method: row.observed_at_method,
    });
    byPeriod.set(row.period, records);
  }
  const periods = [...byPeriod.keys()]
    .sort()
    .map((period) =>
      summarisePeriod(byPeriod.get(period)!.sort((a, b) => a.revision_number - b.revision_number)),
    );
  const firstRevised = periods.findIndex((p) => p.revision_count > 0);
  if (firstRevised < 0) return [];
  return periods
    .slice(Math.max(firstRevised, periods.length - MAX_REVISION_BARS))
    .map((p) => ({ x: p.period, y: Number(p.total_revision.toPrecision(12)) }));
}
