import type { Payload } from '../../contract/envelope.ts';
import { invalidParameter, notFound } from '../../contract/errors.ts';
import type { ParamName } from '../../contract/params.ts';
import type { RequestParams } from '../../contract/parse-request.ts';
import {
  REALTIME_MAX,
  REALTIME_MIN,
  REALTIME_ZONE,
  VINTAGE_PARAM_NAMES,
} from '../../contract/vintage-params.ts';
import { readSeriesInfo, type SeriesInfo } from '../../query/history.ts';
import type { SnapshotDb } from '../../query/snapshot-db.ts';
import { readCatalogKey, readVintageRecords } from '../../query/vintages.ts';
import {
  initialReleases,
  type RealtimeRow,
  realtimeDay,
  valuesByRealtime,
  valuesByVintage,
  vintageDays,
} from '../../query/vintages-compute.ts';
import type { PayloadFunction } from './context.ts';
import { requestedOrder, type SortOrder } from './history-order.ts';
import { describeSeries } from './series-summary.ts';

/**
 * ALFRED's real-time views on endpoints 5 and 8 (docs/api/vintages.md): realtime_start and
 * realtime_end, output_type 1-4, vintage_dates; and endpoint 27, the vintage dates of a series.
 */

/** What a request with vintage parameters asks for. */
export interface VintageRequest {
  outputType: 1 | 2 | 3 | 4;
  realtimeStart: string;
  realtimeEnd: string;
  /** The days asked for (vintage_dates), or null for the real-time period. */
  vintageDates: string[] | null;
  from: string | null;
  to: string | null;
  order: SortOrder;
}

/** Parameters that do not combine with the vintage parameters: each refused naming both. */
const CONFLICTS: readonly ParamName[] = ['as_of', 'units', 'frequency', 'aggregation', 'limit', 'cursor'];

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/**
 * The vintage view a request asks for, or null when it gives none of the vintage parameters.
 * Defaults are ALFRED's: the real-time period is today (St. Louis) unless given.
 */
export function requestedVintageView(params: RequestParams, now: Date): VintageRequest | null {
  const given = VINTAGE_PARAM_NAMES.filter((name) => params.query[name] !== undefined);
  if (given.length === 0) return null;
  for (const name of CONFLICTS)
    if (params.query[name] !== undefined)
      throw invalidParameter(
        name,
        `no ${name} together with ${given[0]} (one form per request: ${name === 'as_of' ? 'as_of, or the ALFRED real-time parameters' : `the vintage view is one page, without ${name}`}; docs/api/vintages.md)`,
      );
  const query = params.query;
  const vintageDates = text(query.vintage_dates)?.split(',') ?? null;
  if (vintageDates && (query.realtime_start !== undefined || query.realtime_end !== undefined))
    throw invalidParameter(
      'vintage_dates',
      'vintage_dates, or realtime_start/realtime_end, not both (ALFRED: vintage dates replace the real-time period)',
    );
  const today = realtimeDay(now.toISOString());
  const end = text(query.realtime_end) ?? today;
  const start = text(query.realtime_start) ?? [end, today].sort()[0]!;
  for (const [name, day] of [
    ['realtime_start', start],
    ['realtime_end', end],
  ] as const)
    if (day < REALTIME_MIN)
      throw invalidParameter(name, `a day from ${REALTIME_MIN} to ${REALTIME_MAX} (ALFRED's bounds)`);
  if (start > end)
    throw invalidParameter('realtime_start', `a day not after realtime_end (${start} is after ${end})`);
  const outputType = (typeof query.output_type === 'number' ? query.output_type : 1) as 1 | 2 | 3 | 4;
  return {
    outputType,
    realtimeStart: vintageDates ? vintageDates[0]! : start,
    realtimeEnd: vintageDates ? vintageDates.at(-1)! : end,
    vintageDates,
    from: text(query.from),
    to: text(query.to),
    order: requestedOrder(params),
  };
}

/** The rows of one vintage view, by period then real time (reversed for sort_order=desc). */
export async function presentVintageView(
  db: SnapshotDb,
  series: SeriesInfo,
  request: VintageRequest,
): Promise<Payload> {
  const records = await readVintageRecords(db, series.key, request.from, request.to);
  const { realtimeStart: start, realtimeEnd: end, outputType } = request;
  let days: string[] | null = null;
  let rows: RealtimeRow[];
  if (outputType === 1 && request.vintageDates === null) rows = valuesByRealtime(records, start, end);
  else if (outputType === 4) {
    rows = initialReleases(records, start, end);
    if (request.vintageDates) {
      const asked = new Set(request.vintageDates);
      rows = rows.filter((row) => asked.has(row.realtime_start));
    }
  } else {
    days =
      request.vintageDates ??
      vintageDays(records)
        .map((vintage) => vintage.day)
        .filter((day) => day >= start && day <= end);
    rows = valuesByVintage(records, days, outputType === 3);
    // output_type 1 with vintage_dates: each date's values in force (ALFRED's output_type 1 rows).
    if (outputType === 1) rows = rows.filter((row) => row.value !== null);
  }
  if (request.order === 'desc') rows.reverse();
  return {
    data: rows,
    meta: {
      view: 'vintages',
      series: describeSeries(series),
      output_type: outputType,
      realtime_start: start,
      realtime_end: end,
      realtime_zone: REALTIME_ZONE,
      vintage_dates: days,
      as_of: null,
      filters: { from: request.from, to: request.to },
      sort_order: request.order,
      next_cursor: null,
      licence: series.licence,
      attribution: series.attribution,
    },
  };
}

/**
 * Endpoint 27: the vintage dates of a catalogued series (any source; the route is keyed), the
 * days a value was released or revised, within realtime_start/realtime_end.
 */
export const getSeriesVintageDates: PayloadFunction = async ({ db }, params) => {
  const key = params.slug === null ? null : await readCatalogKey(db, params.slug);
  const series = key === null ? null : await readSeriesInfo(db, key);
  if (!series) throw notFound(`series ${params.slug}`);
  const start = text(params.query.realtime_start) ?? REALTIME_MIN;
  const end = text(params.query.realtime_end) ?? REALTIME_MAX;
  if (start > end)
    throw invalidParameter('realtime_start', `a day not after realtime_end (${start} is after ${end})`);
  const days = vintageDays(await readVintageRecords(db, series.key, null, null)).filter(
    (vintage) => vintage.day >= start && vintage.day <= end,
  );
  if (requestedOrder(params) === 'desc') days.reverse();
  return {
    data: days.map((vintage) => ({ vintage_date: vintage.day, observed_at: vintage.observed_at })),
    meta: {
      series: { key: series.key, slug: series.slug, name: series.name, source: series.source },
      realtime_start: start,
      realtime_end: end,
      realtime_zone: REALTIME_ZONE,
      sort_order: requestedOrder(params),
      licence: series.licence,
      attribution: series.attribution,
    },
  };
};
