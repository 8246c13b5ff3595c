import type { Payload } from '../../contract/envelope.ts';
import { invalidParameter } from '../../contract/errors.ts';
import type { RequestParams } from '../../contract/parse-request.ts';
import { periodDaySpan, resolvePeriodRange } from '../../model/period-range.ts';
import { FREQUENCIES } from '../../model/records.ts';
import {
  ALLOWED_FREQUENCIES,
  type SeriesFrequency,
  TRANSFORM_FREQUENCIES,
  TRANSFORM_ORDER,
  TRANSFORM_ROUNDING,
  type TransformAggregation,
  type TransformFrequency,
  type TransformNote,
  type TransformUnits,
} from '../../model/transforms.ts';
import type { HistoryQuery, SeriesInfo } from '../../query/history.ts';
import type { SnapshotDb } from '../../query/snapshot-db.ts';
import { readValuesInForceAsOf } from '../../query/transforms.ts';
import {
  frequencyOfPeriod,
  outputFrequency,
  type TransformedRow,
  type TransformSpec,
  transformSeries,
} from '../../query/transforms-compute.ts';
import { encodeCursor } from './cursor.ts';
import { pageByPeriod } from './history-order.ts';
import { describeSeries } from './series-summary.ts';

/**
 * The transformed view of endpoints 5 and 8 (docs/api/transforms.md): with units, frequency or
 * aggregation, one row per period of the values in force at as_of, aggregated, then transformed.
 */

/** The transform a request asks for, or null for the revision listing (none of the three given). */
export function requestedTransform(params: RequestParams): TransformSpec | null {
  const { units, frequency, aggregation } = params.query;
  if (units === undefined && frequency === undefined && aggregation === undefined) return null;
  if (aggregation !== undefined && frequency === undefined)
    throw invalidParameter(
      'aggregation',
      `avg, sum or eop together with frequency (${TRANSFORM_FREQUENCIES.join(', ')}); without frequency nothing is aggregated`,
    );
  return {
    units: (units ?? 'lin') as TransformUnits,
    frequency: (frequency ?? null) as TransformFrequency | null,
    aggregation: frequency === undefined ? null : ((aggregation ?? 'avg') as TransformAggregation),
  };
}

function isSeriesFrequency(text: string | null): text is SeriesFrequency {
  return text !== null && (FREQUENCIES as readonly string[]).includes(text);
}

/** A frequency must be coarser than the series' own: otherwise a 400 naming the ones allowed. */
function checkFrequency(source: SeriesFrequency, frequency: TransformFrequency | null): void {
  if (frequency === null) return;
  const allowed = ALLOWED_FREQUENCIES[source];
  if (allowed.includes(frequency)) return;
  throw invalidParameter(
    'frequency',
    allowed.length
      ? `one of ${allowed.join(', ')} for this ${source} series (only frequencies coarser than its own)`
      : `no frequency for this annual series (nothing is coarser than annual)`,
  );
}

/** One entry per reason a value of the page is null. */
function summarizeNotes(rows: readonly TransformedRow[]) {
  const notes = new Map<TransformNote, { note: TransformNote; periods: number; first_period: string }>();
  for (const row of rows) {
    if (row.note === null) continue;
    const entry = notes.get(row.note);
    if (entry) entry.periods += 1;
    else notes.set(row.note, { note: row.note, periods: 1, first_period: row.period });
  }
  return [...notes.values()];
}

/**
 * Reads the values in force at as_of, transforms the whole series, then keeps the periods of
 * from/to (so the first row of a range still has its lag) and pages them in the order asked.
 */
export async function presentTransformedHistory(
  db: SnapshotDb,
  series: SeriesInfo,
  query: HistoryQuery,
  spec: TransformSpec,
): Promise<Payload> {
  const rows = await readValuesInForceAsOf(db, series.key, query.asOf);
  const source: SeriesFrequency = isSeriesFrequency(series.frequency)
    ? series.frequency
    : frequencyOfPeriod(rows[0]?.period ?? '0000-00');
  checkFrequency(source, spec.frequency);
  const transformed = transformSeries(rows, source, spec);
  const range = resolvePeriodRange(query.from, query.to);
  const selected = transformed.filter((row) => {
    const span =
      spec.frequency === 'w' ? { first: weekStart(row.period), last: row.period } : periodDaySpan(row.period);
    if (!span) return false;
    return (
      (range.firstDay === null || span.last >= range.firstDay) &&
      (range.lastDay === null || span.first <= range.lastDay)
    );
  });
  const { rows: page, more } = pageByPeriod(selected, query.order ?? 'asc', query.after, query.limit);
  const last = page.at(-1);
  const output = outputFrequency(source, spec.frequency);
  return {
    data: page,
    meta: {
      view: 'transformed',
      series: describeSeries(series),
      as_of: query.asOf,
      filters: { from: query.from, to: query.to },
      sort_order: query.order ?? 'asc',
      next_cursor: more && last ? encodeCursor({ period: last.period, revision_number: 1 }) : null,
      licence: series.licence,
      attribution: series.attribution,
      transform: {
        order: [...TRANSFORM_ORDER],
        as_of: query.asOf,
        source_frequency: source,
        frequency: spec.frequency,
        output_frequency: output.frequency,
        aggregation: spec.aggregation,
        units: spec.units,
        periods_per_year: output.periodsPerYear,
        incomplete_periods: spec.aggregation === null ? null : spec.aggregation === 'avg' ? 'kept' : 'null',
        rounding: TRANSFORM_ROUNDING,
        notes: summarizeNotes(page),
      },
    },
  };
}

/** The Saturday a week ending Friday starts on. */
function weekStart(friday: string): string {
  return new Date(Date.parse(`${friday}T00:00:00Z`) - 6 * 86_400_000).toISOString().slice(0, 10);
}
