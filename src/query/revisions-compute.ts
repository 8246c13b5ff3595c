import type { RevisionRecord } from './revisions.ts';

/** A release of a period as the payload shows it. */
export interface RevisionRelease {
  revision_number: number;
  value: number;
  observed_at: string;
  observed_at_method: string;
}

/** A revision after the first release, with its change from the previous revision. */
export interface RevisionChange extends RevisionRelease {
  change: number;
  change_percent: number | null;
  note: 'previous_zero' | null;
}

/** One period of the list shape (docs/api/revisions.md). */
export interface RevisionPeriod {
  shape: 'list';
  period: string;
  first_release: RevisionRelease;
  revisions: RevisionChange[];
  latest: RevisionRelease;
  revision_count: number;
  total_revision: number;
  total_revision_percent: number | null;
  total_revision_note: 'previous_zero' | null;
}

/** One period of the triangle: the value in force at each vintage. */
export interface TriangleRow {
  shape: 'triangle';
  period: string;
  values: Array<number | null>;
}

function toRelease(record: RevisionRecord): RevisionRelease {
  return {
    revision_number: record.revision_number,
    value: record.value,
    observed_at: record.observed_at,
    observed_at_method: record.observed_at_method ?? 'collected',
  };
}

/**
 * The percent change from `base` to `value`: null with the note `previous_zero` when `base` is 0
 * (never Infinity or NaN); a non-finite result (values near the limits of a double) is null too.
 */
export function percentChange(
  base: number,
  value: number,
): { percent: number | null; note: 'previous_zero' | null } {
  if (base === 0) return { percent: null, note: 'previous_zero' };
  const percent = ((value - base) / base) * 100;
  return { percent: Number.isFinite(percent) ? percent : null, note: null };
}

/**
 * One period of the list shape from its revision records known at as_of, in revision order: the
 * first is the first release, the last the revision in force.
 */
export function summarisePeriod(records: readonly RevisionRecord[]): RevisionPeriod {
  const first = records[0]!;
  const last = records.at(-1)!;
  const revisions: RevisionChange[] = [];
  for (let i = 1; i < records.length; i++) {
    const previous = records[i - 1]!;
    const record = records[i]!;
    const { percent, note } = percentChange(previous.value, record.value);
    revisions.push({
      ...toRelease(record),
      change: record.value - previous.value,
      change_percent: percent,
      note,
    });
  }
  const total = percentChange(first.value, last.value);
  return {
    shape: 'list',
    period: first.period,
    first_release: toRelease(first),
    revisions,
    latest: toRelease(last),
    revision_count: records.length - 1,
    total_revision: last.value - first.value,
    total_revision_percent: total.percent,
    total_revision_note: total.note,
  };
}

/**
 * One period of the triangle: per vintage (oldest first), the value of the highest revision
 * observed at or before it, null before the first release.
 */
export function triangleRow(records: readonly RevisionRecord[], vintages: readonly string[]): TriangleRow {
  const byRevision = [...records].sort((a, b) => a.revision_number - b.revision_number);
  const values = vintages.map((vintage) => {
    const instant = Date.parse(vintage);
    let inForce: RevisionRecord | undefined;
    for (const record of byRevision) if (Date.parse(record.observed_at) <= instant) inForce = record;
    return inForce ? inForce.value : null;
  });
  return { shape: 'triangle', period: records[0]!.period, values };
}

/** The columns of the list shape's CSV, in order (also the header of an answer without rows). */
export const REVISION_CSV_COLUMNS = [
  'period',
  'revision_number',
  'value',
  'observed_at',
  'observed_at_method',
  'change',
  'change_percent',
  'note',
  'first_value',
  'latest_value',
  'total_revision',
  'revision_count',
] as const;

/**
 * The CSV lines of the list shape: one per revision record (the first release too), with the
 * change from the previous one and the period's summary repeated on each of its lines.
 */
export function revisionCsvRows(periods: readonly RevisionPeriod[]): Array<Record<string, unknown>> {
  const rows: Array<Record<string, unknown>> = [];
  for (const period of periods) {
    const records = [
      { ...period.first_release, change: null, change_percent: null, note: null },
      ...period.revisions,
    ];
    for (const record of records) {
      rows.push({
        period: period.period,
        revision_number: record.revision_number,
        value: record.value,
        observed_at: record.observed_at,
        observed_at_method: record.observed_at_method,
        change: record.change,
        change_percent: record.change_percent,
        note: record.note,
        first_value: period.first_release.value,
        latest_value: period.latest.value,
        total_revision: period.total_revision,
        revision_count: period.revision_count,
      });
    }
  }
  return rows;
}

/** The CSV lines of the triangle: `period` then one column per vintage (header period,<vintage>,...). */
export function triangleCsvRows(
  rows: readonly TriangleRow[],
  vintages: readonly string[],
): Array<Record<string, unknown>> {
  return rows.map((row) => {
    const line: Record<string, unknown> = { period: row.period };
    vintages.forEach((vintage, i) => {
      line[vintage] = row.values[i];
    });
    return line;
  });
}
