import type { ChartSeries } from './chart-series.ts';

/**
 * The text alternative of a chart: the period covered and, per series, its first, last,
 * lowest and highest values with their periods. Series arrive sorted by period.
 */
export function describeChart(
  title: string,
  xLabel: string,
  series: readonly ChartSeries[],
  format: (value: number) => string,
  maxPoints = 400,
): string {
  if (series.length === 0) return `${title}: no data in this snapshot.`;
  const periods = series.flatMap((s) => s.points.map((p) => p.x)).sort();
  const parts = [`${title}. ${xLabel} from ${periods[0]} to ${periods.at(-1)}.`];
  for (const s of series) {
    const first = s.points[0]!;
    const last = s.points.at(-1)!;
    let min = first;
    let max = first;
    for (const point of s.points) {
      if (point.y < min.y) min = point;
      if (point.y > max.y) max = point;
    }
    const thinned = s.points.length > maxPoints ? ` (${maxPoints} of them plotted)` : '';
    parts.push(
      `${s.name}: ${s.points.length} values${thinned}; first ${format(first.y)} (${first.x}), last ${format(last.y)} (${last.x}), lowest ${format(min.y)} (${min.x}), highest ${format(max.y)} (${max.x}).`,
    );
  }
  return parts.join(' ');
}
