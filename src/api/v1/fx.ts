/**
 * Endpoint 11: the ECB euro reference rates and rates computed from them, of the latest
 * reference date, of a day, or over a range of days (fx-series.ts), by query or by
 * Frankfurter's path forms. docs/api/fx.md.
 */
import { ApiError, invalidParameter } from '../../contract/errors.ts';
import { PARAMS } from '../../contract/params.ts';
import type { RequestParams } from '../../contract/parse-request.ts';
import { type EcbRateRow, readEcbRatesOn, readEcbReferenceDate, readLatestEcbRates } from '../../query/fx.ts';
import type { SnapshotDb } from '../../query/snapshot-db.ts';
import type { PayloadFunction } from './context.ts';
import {
  describeRequest,
  type FxRequest,
  noRatesBefore,
  resolveFxRequest,
  unquotedBase,
} from './fx-request.ts';
import { convertRates } from './fx-rows.ts';
import { getEcbRateSeries } from './fx-series.ts';

export type { FxRate } from './fx-rows.ts';

/** Endpoint 11 by query: the latest rates, those of `date`, or the series of `from`/`to`. */
export const getEcbRates: PayloadFunction = async (context, params) => {
  const { db, now } = context;
  const { date, from, to } = params.query;
  if (date !== undefined && (from !== undefined || to !== undefined))
    throw invalidParameter(
      from !== undefined ? 'from' : 'to',
      'either date (one day) or from/to (a range), not both',
    );
  if (to !== undefined && from === undefined)
    throw invalidParameter('to', 'to together with from (the first day)');
  const request = await resolveFxRequest(db, params);
  const today = now.toISOString().slice(0, 10);
  for (const [name, day] of [
    ['date', date],
    ['from', from],
    ['to', to],
  ] as const) {
    if (typeof day === 'string' && day > today)
      throw new ApiError(
        'invalid_parameter',
        `invalid parameter "${name}": ${day} is after today (${today} UTC); expected ${PARAMS.date.expected}`,
      );
  }
  if (typeof from === 'string')
    return getEcbRateSeries(db, request, { from, to: typeof to === 'string' ? to : null, today });
  return getEcbRatesOfDay(db, request, typeof date === 'string' ? date : null);
};

/**
 * Endpoint 11 by Frankfurter's path (/api/v1/fx/ecb/{dates}): the path says date, from and to,
 * and the answer is that of the query form.
 */
export const getEcbRatesByPath: PayloadFunction = (context, params) => {
  const dates = params.slug ?? 'latest';
  const query: RequestParams['query'] = { ...params.query };
  if (dates.includes('..')) {
    const [from, to] = dates.split('..') as [string, string];
    query.from = from;
    if (to !== '') query.to = to;
    if (to !== '' && to < from)
      throw invalidParameter('dates', `a range whose first day (${from}) is not after its last (${to})`);
  } else if (dates !== 'latest') query.date = dates;
  return getEcbRates(context, { ...params, slug: null, query });
};

/** The rates of the latest reference date, or of the last one at or before `requested`. */
async function getEcbRatesOfDay(db: SnapshotDb, request: FxRequest, requested: string | null) {
  const rows =
    requested === null ? await readLatestEcbRates(db, '') : await readRatesAtOrBefore(db, requested);
  const date = rows[0]?.date ?? null;
  const { conversion, currencies } = request;
  const converted = convertRates(rows, conversion);
  if (converted === null) throw unquotedBase(conversion.base, date, rows);
  const wanted = currencies === null ? null : new Set(currencies);
  const data = wanted === null ? converted : converted.filter((quote) => wanted.has(quote.currency));
  const baseRow =
    conversion.base === 'EUR' ? null : (rows.find((row) => row.currency === conversion.base) ?? null);
  return {
    data,
    meta: {
      ...(await describeRequest(db, request)),
      date,
      requested_date: requested,
      range: null,
      base_rate:
        baseRow === null
          ? null
          : {
              currency: baseRow.currency,
              rate: baseRow.rate,
              date: baseRow.date,
              observed_at: baseRow.observed_at,
              revision_number: baseRow.revision_number,
              series_key: baseRow.series_key,
            },
      not_quoted: (currencies ?? []).filter((code) => !data.some((quote) => quote.currency === code)),
    },
  };
}

/** The rates of the last reference date at or before `day`; 404 before the first one. */
async function readRatesAtOrBefore(db: SnapshotDb, day: string): Promise<EcbRateRow[]> {
  const date = await readEcbReferenceDate(db, day);
  if (date === null) throw await noRatesBefore(db, day);
  return readEcbRatesOn(db, date);
}
