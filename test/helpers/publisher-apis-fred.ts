import { type ApiAnswer, type ApiCall, createEmulatedApi, type EmulatedApi } from './publisher-apis.ts';
import type { AlfredRow } from './publisher-apis-fred-data.ts';

/** What the emulated FRED/ALFRED API knows and how strict it is. */
export interface FredApiEmulatorOptions {
  /** FRED series id → its vintage dates and ALFRED rows (from readRealPayemsVintages). */
  series: Record<string, { vintageDates: readonly string[]; rows: readonly AlfredRow[] }>;
  /** The one key FRED has registered. */
  apiKey: string;
  /** Vintage dates allowed in one observations request's real-time period (FRED: 2000). */
  maxVintageDates?: number;
  /** The largest `limit` the server honours (FRED: 10000 vintage dates, 100000 observations). */
  maxPageSize?: number;
}

/** The emulated API, with its request log and fault queue. */
export type FredApiEmulator = EmulatedApi;

const EARLIEST = '1776-07-04';
const LATEST = '9999-12-31';

/**
 * Emulates api.stlouisfed.org `fred/series/vintagedates` and `fred/series/observations`
 * (file_type=json, output_type 1, realtime_start/realtime_end, limit/offset) with FRED's error
 * bodies (`{"error_code":400,"error_message":"Bad Request.  …"}`), including the cap on vintage
 * dates in one observations request.
 */
export function createFredApiEmulator(options: FredApiEmulatorOptions): FredApiEmulator {
  return createEmulatedApi('fred/', (call) => answer(call, options));
}

function answer(call: ApiCall, options: FredApiEmulatorOptions): ApiAnswer {
  const q = call.query;
  const key = q.get('api_key');
  if (key === null) return badRequest('Variable api_key has not been set.');
  if (key !== options.apiKey) {
    return badRequest(
      'The value for variable api_key is not registered.  Read https://fred.stlouisfed.org/docs/api/api_key.html for more information.',
    );
  }
  if (q.get('file_type') !== 'json') return badRequest('this emulator answers file_type=json only.');
  const series = options.series[q.get('series_id') ?? ''];
  if (series === undefined) return badRequest('The series does not exist.');
  const start = q.get('realtime_start') ?? EARLIEST;
  const end = q.get('realtime_end') ?? LATEST;
  const offset = Number(q.get('offset') ?? 0);
  const pageCap = (defaultLimit: number) =>
    Math.min(Number(q.get('limit') ?? defaultLimit), options.maxPageSize ?? defaultLimit);
  const vintages = series.vintageDates.filter((date) => date >= start && date <= end);
  const meta = { realtime_start: start, realtime_end: end };
  if (call.path === '/fred/series/vintagedates') {
    const limit = pageCap(10_000);
    const page = vintages.slice(offset, offset + limit);
    return {
      status: 200,
      json: {
        ...meta,
        order_by: 'vintage_date',
        sort_order: 'asc',
        count: vintages.length,
        offset,
        limit,
        vintage_dates: page,
      },
    };
  }
  if (call.path !== '/fred/series/observations')
    return { status: 404, json: { error_code: 404, error_message: 'Not Found' } };
  const maxVintages = options.maxVintageDates ?? 2000;
  if (vintages.length > maxVintages) {
    return badRequest(
      `There are ${vintages.length} vintage dates in the specified real-time period: ${start} to ${end}.  This exceeds the maximum number of vintage dates allowed (${maxVintages}).`,
    );
  }
  // Rows whose real-time period meets the requested one, clipped to it (as FRED answers).
  const rows = series.rows
    .filter((row) => row.realtime_start <= end && row.realtime_end >= start)
    .map((row) => ({
      realtime_start: row.realtime_start.localeCompare(start) > 0 ? row.realtime_start : start,
      realtime_end: row.realtime_end.localeCompare(end) < 0 ? row.realtime_end : end,
      date: row.date,
      value: row.value,
    }));
  const limit = pageCap(100_000);
  return {
    status: 200,
    json: {
      ...meta,
      observation_start: EARLIEST,
      observation_end: LATEST,
      units: 'lin',
      output_type: 1,
      file_type: 'json',
      order_by: 'observation_date',
      sort_order: 'asc',
      count: rows.length,
      offset,
      limit,
      observations: rows.slice(offset, offset + limit),
    },
  };
}

function badRequest(message: string): ApiAnswer {
  return { status: 400, json: { error_code: 400, error_message: `Bad Request.  ${message}` } };
}
