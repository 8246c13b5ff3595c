/**
 * Endpoint 11 as a time series (Frankfurter's `/2025-01-02..2025-01-31`, our `from`/`to`): every
 * ECB reference date of the range, each converted as one day would be (fx-rows.ts). A range that
 * starts on a weekend or TARGET holiday starts at the reference date before it, as Frankfurter's
 * does, and meta.range says so.
 */
import { ApiError } from '../../contract/errors.ts';
import { FX_MAX_SERIES_RATES } from '../../contract/fx-params.ts';
import {
  countEcbRatesBetween,
  type EcbRateRow,
  readEcbDateRange,
  readEcbRatesBetween,
  readEcbReferenceDate,
} from '../../query/fx.ts';
import type { SnapshotDb } from '../../query/snapshot-db.ts';
import { describeRequest, type FxRequest, noRatesBefore, unquotedBase } from './fx-request.ts';
import { convertRates, type FxRate } from './fx-rows.ts';

/** The days asked for: `to` null is up to the latest reference date. */
export interface FxRange {
  from: string;
  to: string | null;
  /** Today in UTC: the end of an open range. */
  today: string;
}

/** The time series of a range: rows by date then currency, and meta.range describing it. */
export async function getEcbRateSeries(db: SnapshotDb, request: FxRequest, range: FxRange) {
  const end = await readEcbReferenceDate(db, range.to ?? range.today);
  if (end === null) throw await noRatesBefore(db, range.to ?? range.today);
  const atOrBefore = await readEcbReferenceDate(db, range.from);
  // A from before the first reference date starts at the first one (and says so).
  const start = atOrBefore ?? (await readEcbDateRange(db)).first!;
  const { currencies, conversion } = request;
  const codes =
    currencies === null
      ? ''
      : [...new Set([...currencies, ...(conversion.base === 'EUR' ? [] : [conversion.base])])].join(',');
  const count = await countEcbRatesBetween(db, start, end, codes);
  if (count.rates > FX_MAX_SERIES_RATES)
    throw new ApiError(
      'invalid_parameter',
      `invalid parameter "from": the series from ${start} to ${end} holds ${count.rates} rates (${count.dates} ` +
        `reference dates); expected at most ${FX_MAX_SERIES_RATES}: name fewer currencies (currency=usd,gbp) or a shorter range`,
    );
  const rows = await readEcbRatesBetween(db, start, end, codes);
  const { data, withoutBase } = convertSeries(rows, request);
  if (data.length === 0 && withoutBase > 0)
    throw unquotedBase(conversion.base, `any reference date from ${start} to ${end}`, rows);
  const dates = new Set(data.map((rate) => rate.date));
  return {
    data,
    meta: {
      ...(await describeRequest(db, request)),
      date: null,
      requested_date: null,
      range: {
        requested_from: range.from,
        requested_to: range.to,
        start_date: data[0]?.date ?? null,
        end_date: data.at(-1)?.date ?? null,
        dates: dates.size,
        dates_without_base: withoutBase,
        note: describeStart(range.from, atOrBefore, start),
      },
      // Each date divides by its own base rate: see the rows' observed_at and revision_number.
      base_rate: null,
      not_quoted: (currencies ?? []).filter((code) => !data.some((rate) => rate.currency === code)),
    },
  };
}

/** The rows of every date, converted, the asked currencies only; dates without a base rate left out. */
function convertSeries(
  rows: readonly EcbRateRow[],
  request: FxRequest,
): { data: FxRate[]; withoutBase: number } {
  const byDate = new Map<string, EcbRateRow[]>();
  for (const row of rows) byDate.set(row.date, [...(byDate.get(row.date) ?? []), row]);
  const wanted = request.currencies === null ? null : new Set(request.currencies);
  const data: FxRate[] = [];
  let withoutBase = 0;
  for (const dayRows of byDate.values()) {
    const converted = convertRates(dayRows, request.conversion);
    if (converted === null) withoutBase += 1;
    else data.push(...(wanted === null ? converted : converted.filter((rate) => wanted.has(rate.currency))));
  }
  return { data, withoutBase };
}

/** Why the series starts where it does, when that is not the day asked for; else null. */
function describeStart(from: string, atOrBefore: string | null, start: string): string | null {
  if (atOrBefore === null)
    return `${from} is before the first ECB reference date: the series starts with the first, ${start}`;
  if (atOrBefore !== from)
    return (
      `${from} is not an ECB reference date (a weekend, a TARGET holiday or a day without rates): the ` +
      `series starts with the rates of the reference date before it, ${start}`
    );
  return null;
}
