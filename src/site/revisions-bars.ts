import { computeTimeTicks, computeValueTicks, parsePeriodStart } from './charts/axis-ticks.ts';
import { describeChart } from './charts/describe-chart.ts';
import { type ChartPoint, round, wrapWords } from './charts/line-chart.ts';
import { escapeHtml } from './escape-html.ts';
import { formatNumber } from './format.ts';

/** What the bar chart of revision sizes draws; the text alternative is derived from the same data. */
export interface RevisionBarsOptions {
  /** Unique within the page: the ids of the title and description derive from it. */
  id: string;
  title: string;
  /** Y axis label with the unit. */
  yLabel: string;
  xLabel: string;
  /** One bar per period: its total revision (latest − first release), in period order. */
  points: readonly ChartPoint[];
  height?: number;
}

/** The wide drawing (760 units) and the narrow one that replaces it on phones, as the line charts. */
const DRAWINGS = [
  { variant: 'wide', width: 760, fontSize: 12, timeTicks: 6, valueTicks: 5 },
  { variant: 'narrow', width: 360, fontSize: 13, timeTicks: 3, valueTicks: 4 },
] as const;

/**
 * Renders the size of each period's revision as bars from a zero line (up: revised up, down:
 * revised down), as a self-contained SVG pair (`svg.chart.chart-wide`, `svg.chart.chart-narrow`)
 * with the classes and text alternative of the line charts. Periods are evenly spaced bands.
 */
export function renderRevisionBars(options: RevisionBarsOptions): string {
  return DRAWINGS.map((drawing) => drawBars(options, drawing)).join('');
}

function drawBars(options: RevisionBarsOptions, drawing: (typeof DRAWINGS)[number]): string {
  const width = drawing.width;
  const height = Math.round((options.height ?? 240) * (drawing.variant === 'narrow' ? 0.9 : 1));
  const font = `font-family="system-ui, sans-serif" font-size="${drawing.fontSize}"`;
  const charWidth = drawing.fontSize * 0.6;
  const points = [...options.points].sort((a, b) => (a.x < b.x ? -1 : a.x > b.x ? 1 : 0));
  const id = drawing.variant === 'wide' ? options.id : `${options.id}-narrow`;
  const desc = describeChart(
    options.title,
    options.xLabel,
    points.length ? [{ name: 'Revision', points }] : [],
    formatNumber,
    points.length,
  );
  const open = `<svg class="chart chart-${drawing.variant}" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="${id}-title ${id}-desc"><title id="${id}-title">${escapeHtml(options.title)}</title><desc id="${id}-desc">${escapeHtml(desc)}</desc>`;
  if (points.length === 0)
    return `${open}<text x="${width / 2}" y="${height / 2}" text-anchor="middle" ${font} fill="#333">No data in this snapshot</text></svg>`;
  const values = points.map((p) => p.y);
  // Zero is always on the axis: a bar starts there.
  const ticks = computeValueTicks(Math.min(0, ...values), Math.max(0, ...values), drawing.valueTicks);
  const [y0, y1] = [ticks[0]!, ticks.at(-1)!];
  const left = Math.round(16 + Math.max(...ticks.map((t) => formatNumber(t).length)) * charWidth);
  // The axis label above the plot, on as many lines as the drawing's width needs.
  const labelLines = wrapWords(options.yLabel, Math.floor((width - 16) / charWidth));
  const top = drawing.fontSize * 2 + 12 + (labelLines.length - 1) * (drawing.fontSize + 3);
  const margin = { top, right: 20, bottom: 26 + drawing.fontSize * 2, left };
  const plot = { width: width - margin.left - margin.right, height: height - margin.top - margin.bottom };
  const band = plot.width / points.length;
  const times = points.map((p) => parsePeriodStart(p.x));
  const [t0, t1] = [times[0]!, times.at(-1)!];
  const sx = (t: number) =>
    margin.left + band / 2 + (t1 === t0 ? 0 : ((t - t0) / (t1 - t0)) * (plot.width - band));
  const sy = (v: number) => margin.top + plot.height - ((v - y0) / (y1 - y0)) * plot.height;
  const parts: string[] = [open];
  for (const tick of ticks) {
    const y = round(sy(tick));
    parts.push(
      `<line class="${tick === 0 ? 'axis' : 'grid'}" x1="${margin.left}" x2="${margin.left + plot.width}" y1="${y}" y2="${y}" stroke="${tick === 0 ? '#555' : '#ddd'}"/>`,
      `<text x="${margin.left - 6}" y="${y + 4}" text-anchor="end" ${font} fill="#333">${escapeHtml(formatNumber(tick))}</text>`,
    );
  }
  const axisY = margin.top + plot.height;
  for (const tick of computeTimeTicks(t0, t1, drawing.timeTicks)) {
    const x = round(sx(tick.time));
    const half = (tick.label.length * charWidth) / 2;
    const anchor = x + half > width ? 'end' : x - half < 0 ? 'start' : 'middle';
    parts.push(
      `<line class="axis" x1="${x}" x2="${x}" y1="${axisY}" y2="${axisY + 5}" stroke="#333"/>`,
      `<text x="${x}" y="${axisY + 6 + drawing.fontSize}" text-anchor="${anchor}" ${font} fill="#333">${escapeHtml(tick.label)}</text>`,
    );
  }
  parts.push(
    `<text x="${margin.left + plot.width / 2}" y="${height - 8}" text-anchor="middle" ${font} fill="#333">${escapeHtml(options.xLabel)}</text>`,
    ...labelLines.map(
      (line, i) =>
        `<text x="8" y="${drawing.fontSize + 2 + i * (drawing.fontSize + 3)}" ${font} font-weight="600" fill="#222">${escapeHtml(line)}</text>`,
    ),
  );
  // A bar at least 1 unit wide and tall enough to see when it is not zero.
  const barWidth = Math.max(1, round(band * 0.8));
  const zeroY = sy(0);
  parts.push('<g class="series c0" color="#0072B2" data-series="Revision">');
  points.forEach((point, i) => {
    const x = round(sx(times[i]!) - barWidth / 2);
    const y = sy(point.y);
    const h = point.y === 0 ? 0 : Math.max(1, Math.abs(y - zeroY));
    const yTop = point.y >= 0 ? zeroY - h : zeroY;
    parts.push(
      `<rect class="bar" x="${x}" y="${round(yTop)}" width="${barWidth}" height="${round(h)}" fill="currentColor"><title>${escapeHtml(`${point.x}: ${formatNumber(point.y)}`)}</title></rect>`,
    );
  });
  parts.push('</g></svg>');
  return parts.join('');
}
