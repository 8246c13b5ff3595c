/** A tick on the time axis: a UTC instant and its label. */
export interface TimeTick {
  time: number;
  label: string;
}

const DAY_MS = 86_400_000;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAY_STEPS = [1, 2, 7, 14];
const MONTH_STEPS = [1, 2, 3, 6, 12, 24, 60, 120, 240];

/** Converts a period (`YYYY-MM-DD`, `YYYY-MM`, `YYYY-Qn`, `YYYY`) to the UTC instant it starts at. */
export function parsePeriodStart(period: string): number {
  const match = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?|-Q([1-4]))?$/.exec(period);
  if (!match) throw new Error(`not a period: ${period}`);
  const [, year, month, day, quarter] = match;
  const monthIndex = quarter ? (Number(quarter) - 1) * 3 : month ? Number(month) - 1 : 0;
  return Date.UTC(Number(year), monthIndex, day ? Number(day) : 1);
}

/** The smallest step of 1, 2, 2.5 or 5 times a power of ten that is at least `raw`. */
function niceStep(raw: number): number {
  const power = 10 ** Math.floor(Math.log10(raw));
  const fraction = raw / power;
  const nice = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 2.5 ? 2.5 : fraction <= 5 ? 5 : 10;
  return nice * power;
}

/**
 * Round-numbered ticks covering [min, max] in about `target` steps; the axis is widened to the
 * outer ticks so that every point lies inside it.
 */
export function computeValueTicks(min: number, max: number, target = 5): number[] {
  let low = min;
  let high = max;
  if (low === high) {
    const pad = low === 0 ? 1 : Math.abs(low) * 0.05;
    low -= pad;
    high += pad;
  }
  const step = niceStep((high - low) / target);
  const first = Math.floor(low / step);
  const last = Math.ceil(high / step);
  // Multiplying (not adding up) and rounding keep float noise (0.30000000000000004) out of the labels.
  return Array.from({ length: last - first + 1 }, (_, i) => Number(((first + i) * step).toPrecision(12)));
}

/** Calendar ticks (days, month starts or year starts) across [start, end], at most about `target`. */
export function computeTimeTicks(start: number, end: number, target = 6): TimeTick[] {
  const span = Math.max(end - start, DAY_MS);
  const dayStep = DAY_STEPS.find((step) => span / (step * DAY_MS) <= target);
  if (dayStep !== undefined) {
    const ticks: TimeTick[] = [];
    let year = -1;
    for (let time = Math.ceil(start / DAY_MS) * DAY_MS; time <= end; time += dayStep * DAY_MS) {
      const date = new Date(time);
      // The year is written on the first tick and wherever it changes.
      const label = `${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]}`;
      ticks.push({
        time,
        label: date.getUTCFullYear() === year ? label : `${label} ${date.getUTCFullYear()}`,
      });
      year = date.getUTCFullYear();
    }
    return ticks.length > 0 ? ticks : [{ time: start, label: formatDay(start) }];
  }
  const monthStep = MONTH_STEPS.find((step) => span / (step * 30.44 * DAY_MS) <= target) ?? 480;
  const from = new Date(start);
  let index = from.getUTCFullYear() * 12 + from.getUTCMonth();
  if (Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), 1) < start) index += 1;
  index = Math.ceil(index / monthStep) * monthStep;
  const ticks: TimeTick[] = [];
  for (; ; index += monthStep) {
    const year = Math.floor(index / 12);
    const month = index % 12;
    const time = Date.UTC(year, month, 1);
    if (time > end) break;
    ticks.push({ time, label: monthStep >= 12 ? String(year) : `${MONTHS[month]} ${year}` });
  }
  return ticks;
}

function formatDay(time: number): string {
  return new Date(time).toISOString().slice(0, 10);
}
