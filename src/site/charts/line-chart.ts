import { escapeHtml } from '../escape-html.ts';
import { formatNumber } from '../format.ts';
import { computeTimeTicks, computeValueTicks, parsePeriodStart } from './axis-ticks.ts';
import type { ChartSeries } from './chart-series.ts';
import { describeChart } from './describe-chart.ts';

export type { ChartPoint, ChartSeries } from './chart-series.ts';

/** What to draw; the text alternative is derived from the same data. */
export interface LineChartOptions {
  /** Unique within the page: the ids of the title and description derive from it. */
  id: string;
  title: string;
  /** Y axis label with the unit, e.g. `Net position (contracts)`. */
  yLabel: string;
  xLabel: string;
  series: readonly ChartSeries[];
  formatValue?: (value: number) => string;
  /** Longer series are thinned to this many evenly spaced points (first and last kept). */
  maxPoints?: number;
  /**
   * One `circle.point` (with its value as a tooltip) per plotted point; true unless set. A page
   * of many charts (the FX page: one per currency) draws lines only, or its HTML would run to
   * megabytes: about 100 bytes per marker against 8 per segment of the line.
   */
  markers?: boolean;
  width?: number;
  height?: number;
}

/**
 * Okabe-Ito colours, distinguishable with the common colour-vision deficiencies; its orange and
 * sky blue are replaced by darker tones so that every line has 3:1 contrast on white. In dark
 * mode public/site.css gives each `.cN` class the original, lighter tones (3:1 on the dark page).
 */
const COLOURS = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#8C6D00', '#555555', '#000000'];
const DASHES = ['', '6 3', '2 3', '8 3 2 3'];
const defaultFormat = (value: number) => formatNumber(value);

/**
 * The two drawings of every chart. The wide one is drawn for a 760-unit viewBox shown at up to
 * 760 CSS px; on a phone (390 px, about 350 px of content) it would shrink its 12-unit text to
 * 5-6 px, so a narrow drawing (fewer ticks and points, larger text for its size) replaces it
 * there, by a CSS media query: labels stay at 11 px or more as rendered, without script.
 */
const NARROW = { width: 360, fontSize: 13, maxPoints: 150, timeTicks: 3, valueTicks: 4 } as const;

/** How one drawing is laid out. */
interface Geometry {
  variant: 'wide' | 'narrow';
  width: number;
  height: number;
  fontSize: number;
  maxPoints: number;
  timeTicks: number;
  valueTicks: number;
}

/** Keeps at most `max` evenly spaced points of a series, always the first and the last. */
export function thinPoints<T>(points: readonly T[], max: number): T[] {
  if (points.length <= max || max < 2) return [...points];
  const step = (points.length - 1) / (max - 1);
  return Array.from({ length: max }, (_, i) => points[Math.round(i * step)]!);
}

/**
 * Renders a time-series line chart as a self-contained SVG string: one path per series, one
 * `circle.point` per plotted point, axes with ticks, a legend, and a title and description that
 * state what the chart shows in words. No script: it works with JavaScript off.
 */
export function renderLineChart(options: LineChartOptions): string {
  const width = options.width ?? 760;
  const height = options.height ?? 320;
  const maxPoints = options.maxPoints ?? 400;
  const wide: Geometry = {
    variant: 'wide',
    width,
    height,
    fontSize: 12,
    maxPoints,
    timeTicks: 6,
    valueTicks: 5,
  };
  const narrow: Geometry = {
    variant: 'narrow',
    width: NARROW.width,
    height: Math.round(height * 0.9),
    fontSize: NARROW.fontSize,
    maxPoints: Math.min(maxPoints, NARROW.maxPoints),
    timeTicks: NARROW.timeTicks,
    valueTicks: NARROW.valueTicks,
  };
  return drawChart(options, wide) + drawChart(options, narrow);
}

/** One drawing of the chart: `svg.chart.chart-wide` (ids as given) or `svg.chart.chart-narrow` (ids suffixed). */
function drawChart(options: LineChartOptions, geometry: Geometry): string {
  const { width, height } = geometry;
  // The font is set once on the <svg>: its text elements inherit it (shorter pages).
  const font = `font-family="system-ui, sans-serif" font-size="${geometry.fontSize}"`;
  const charWidth = geometry.fontSize * 0.6;
  const format = options.formatValue ?? defaultFormat;
  const series = options.series
    .map((s) => ({ ...s, points: [...s.points].sort((a, b) => (a.x < b.x ? -1 : a.x > b.x ? 1 : 0)) }))
    .filter((s) => s.points.length > 0);
  const id = geometry.variant === 'wide' ? options.id : `${options.id}-narrow`;
  const titleId = `${id}-title`;
  const descId = `${id}-desc`;
  const desc = describeChart(options.title, options.xLabel, series, format, geometry.maxPoints);
  const open = `<svg class="chart chart-${geometry.variant}" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" ${font} role="img" aria-labelledby="${titleId} ${descId}"><title id="${titleId}">${escapeHtml(options.title)}</title><desc id="${descId}">${escapeHtml(desc)}</desc>`;
  if (series.length === 0) {
    return `${open}<text x="${width / 2}" y="${height / 2}" text-anchor="middle" fill="#333">No data in this snapshot</text></svg>`;
  }
  const plotted = series.map((s) => ({ ...s, points: thinPoints(s.points, geometry.maxPoints) }));
  const times = series.flatMap((s) => s.points.map((p) => parsePeriodStart(p.x)));
  const values = series.flatMap((s) => s.points.map((p) => p.y));
  const [t0, t1] = [Math.min(...times), Math.max(...times)];
  const yTicks = computeValueTicks(Math.min(...values), Math.max(...values), geometry.valueTicks);
  const [y0, y1] = [yTicks[0]!, yTicks.at(-1)!];
  // Room for the longest tick label; the axis label sits above the plot, where it never clips.
  const left = Math.round(16 + Math.max(...yTicks.map((tick) => format(tick).length)) * charWidth);
  // The axis label, on as many lines as the drawing's width needs (a narrow one may need two).
  const labelLines = wrapWords(options.yLabel, Math.floor((width - 16) / charWidth));
  const labelHeight = (labelLines.length - 1) * (geometry.fontSize + 3);
  const legend = layoutLegend(
    plotted.map((s) => s.name),
    left,
    width,
    geometry.fontSize,
    labelHeight,
  );
  const margin = { top: legend.bottom + 8, right: 20, bottom: 26 + geometry.fontSize * 2, left };
  const plot = { width: width - margin.left - margin.right, height: height - margin.top - margin.bottom };
  // Markers shrink where points crowd, so that a long series stays a line rather than a band.
  const spacing = plot.width / Math.max(1, ...plotted.map((s) => s.points.length - 1));
  const dense = spacing < 5;
  const marker = dense ? { r: 1, ring: 1.8, stroke: 0.75 } : { r: 2.5, ring: 4, stroke: 1.5 };
  const sx = (t: number) => margin.left + (t1 === t0 ? plot.width / 2 : ((t - t0) / (t1 - t0)) * plot.width);
  const sy = (v: number) => margin.top + plot.height - ((v - y0) / (y1 - y0)) * plot.height;
  const parts: string[] = [open];
  for (const tick of yTicks) {
    const y = round(sy(tick));
    const zero = tick === 0 && y0 < 0;
    parts.push(
      `<line class="${zero ? 'axis' : 'grid'}" x1="${margin.left}" x2="${margin.left + plot.width}" y1="${y}" y2="${y}" stroke="${zero ? '#555' : '#ddd'}"/>`,
      `<text x="${margin.left - 6}" y="${y + 4}" text-anchor="end" fill="#333">${escapeHtml(format(tick))}</text>`,
    );
  }
  const axisY = margin.top + plot.height;
  parts.push(
    `<line class="axis" x1="${margin.left}" x2="${margin.left + plot.width}" y1="${axisY}" y2="${axisY}" stroke="#333"/>`,
  );
  for (const tick of computeTimeTicks(t0, t1, geometry.timeTicks)) {
    const x = round(sx(tick.time));
    // A label that would run past the edge of the drawing is aligned to its tick instead.
    const half = (tick.label.length * charWidth) / 2;
    const anchor = x + half > width ? 'end' : x - half < 0 ? 'start' : 'middle';
    parts.push(
      `<line class="axis" x1="${x}" x2="${x}" y1="${axisY}" y2="${axisY + 5}" stroke="#333"/>`,
      `<text x="${x}" y="${axisY + 6 + geometry.fontSize}" text-anchor="${anchor}" fill="#333">${escapeHtml(tick.label)}</text>`,
    );
  }
  parts.push(
    `<text x="${margin.left + plot.width / 2}" y="${height - 8}" text-anchor="middle" fill="#333">${escapeHtml(options.xLabel)}</text>`,
    ...labelLines.map(
      (line, i) =>
        `<text x="8" y="${geometry.fontSize + 2 + i * (geometry.fontSize + 3)}" font-weight="600" fill="#222">${escapeHtml(line)}</text>`,
    ),
  );
  // Dashed series (first prints) are painted first, under the solid ones: where a first print
  // equals the value in force, the solid line stays whole on top instead of being cut into dashes.
  const paintOrder = plotted
    .map((s, i) => [s, i] as const)
    .sort(([a], [b]) => Number(!a.dashed) - Number(!b.dashed));
  paintOrder.forEach(([s, i]) => {
    const { colour, dash, tone } = styleSeries(s, i);
    const xy = s.points.map((p) => [round(sx(parsePeriodStart(p.x))), round(sy(p.y))] as const);
    const d = pathData(xy);
    parts.push(
      `<g class="series ${tone}" color="${colour}" data-series="${escapeHtml(s.name)}"><path d="${d}" fill="none" stroke="currentColor" stroke-width="${dense ? 1.5 : 2}"${dash ? ` stroke-dasharray="${dash}"` : ''}/>`,
      ...(options.markers === false ? [] : xy).map(
        ([x, y], j) =>
          `<circle class="point" cx="${x}" cy="${y}" r="${s.dashed ? marker.ring : marker.r}" fill="${s.dashed ? 'none' : 'currentColor'}" stroke="currentColor" stroke-width="${marker.stroke}"><title>${escapeHtml(`${s.name}, ${s.points[j]!.x}: ${format(s.points[j]!.y)}`)}</title></circle>`,
      ),
      '</g>',
    );
  });
  for (const item of legend.items) {
    const i = item.index;
    const s = plotted[i]!;
    const { colour, dash, tone } = styleSeries(s, i);
    parts.push(
      `<g class="legend-item ${tone}" color="${colour}"><line x1="${item.x}" x2="${item.x + 24}" y1="${item.y}" y2="${item.y}" stroke="currentColor" stroke-width="2"${dash ? ` stroke-dasharray="${dash}"` : ''}/>`,
      `<circle${s.dashed ? ' class="hollow"' : ''} cx="${item.x + 12}" cy="${item.y}" r="3" fill="${s.dashed ? '#fff' : 'currentColor'}" stroke="currentColor" stroke-width="1.5"/>`,
      `<text x="${item.x + 30}" y="${item.y + 4}" fill="#222">${escapeHtml(s.name)}</text></g>`,
    );
  }
  parts.push('</svg>');
  return parts.join('');
}

/** The colour and dash pattern of the i-th series: told apart by both, not by colour alone. */
function styleSeries(series: ChartSeries, index: number) {
  return {
    colour: COLOURS[index % COLOURS.length]!,
    tone: `c${index % COLOURS.length}`,
    dash: series.dashed ? '5 4' : DASHES[index % DASHES.length]!,
  };
}

/** Places legend entries below the axis label, left to right, wrapping when the width runs out. */
function layoutLegend(
  names: readonly string[],
  left: number,
  width: number,
  fontSize: number,
  below: number,
) {
  const items: Array<{ index: number; x: number; y: number }> = [];
  const charWidth = fontSize * 0.6;
  // Narrow drawings start the legend at the left edge: the value labels' margin would waste room.
  const start = width < 500 ? 8 : left;
  let x = start;
  let y = fontSize * 2 + 10 + below;
  names.forEach((name, index) => {
    const itemWidth = 30 + name.length * charWidth + 18;
    if (x + itemWidth > width - 20 && x > start) {
      x = start;
      y += fontSize + 8;
    }
    items.push({ index, x, y });
    x += itemWidth;
  });
  return { items, bottom: y + 10 };
}

/** Splits text into lines of at most `max` characters at spaces (a longer word stays whole). */
export function wrapWords(text: string, max: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > max) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(line);
  return lines;
}

/**
 * The `d` of a line through points already rounded to one decimal: a move to the first, then one
 * relative line command per point (`l1.2-3.4`), exact since the deltas are taken in tenths. One
 * command per point, so that the drawn points can be counted from it.
 */
export function pathData(points: ReadonlyArray<readonly [number, number]>): string {
  const tenths = points.map(([x, y]) => [Math.round(x * 10), Math.round(y * 10)] as const);
  return tenths
    .map(([x, y], j) => {
      if (j === 0) return `M${x / 10} ${y / 10}`;
      const [dx, dy] = [(x - tenths[j - 1]![0]) / 10, (y - tenths[j - 1]![1]) / 10];
      return `l${dx}${dy < 0 ? '' : ' '}${dy}`;
    })
    .join('');
}

/** A coordinate to one decimal, as the charts write them. */
export function round(value: number): number {
  return Math.round(value * 10) / 10;
}
