/** The data of a line chart (line-chart.ts draws it, describe-chart.ts says it in words). */

/** One observation: a period (`YYYY-MM-DD`, `YYYY-MM`, `YYYY-Qn`, `YYYY`) and its value. */
export interface ChartPoint {
  x: string;
  y: number;
}

/** One line of a chart. */
export interface ChartSeries {
  name: string;
  points: readonly ChartPoint[];
  /** Dashed line and hollow markers, e.g. for first prints against values in force. */
  dashed?: boolean;
}
