import { ApiError, invalidParameter } from '../../contract/errors.ts';
import { FX_CURRENCY_PARAM, PARAMS } from '../../contract/params.ts';
import { readSourceTerms } from '../../query/catalog.ts';
import {
  type EcbRateRow,
  readCurrencyName,
  readEcbDateRange,
  readEcbRatesOn,
  readEcbReferenceDate,
  readLatestEcbRates,
} from '../../query/fx.ts';
import { hasCurrency } from '../../query/reference-codes.ts';
import type { SnapshotDb } from '../../query/snapshot-db.ts';
import type { PayloadFunction } from './context.ts';
import { CROSS_RATE_METHOD, crossRate, EUR_RATE_METHOD } from './fx-cross-rate.ts';

/** One rate of the payload: units of `currency` per 1 `base`. */
export interface FxRate {
  currency: string;
  currency_name: string | null;
  rate: number;
  base: string;
  date: string;
  observed_at: string;
  observed_at_method: string;
  revision_number: number;
  series_key: string;
}

/**
 * Endpoint 11: the ECB euro reference rates of the latest reference date, or of the last one at
 * or before `date`; with a `base` other than EUR, cross rates of that date (fx-cross-rate.ts).
 */
export const getEcbRates: PayloadFunction = async ({ db, now }, params) => {
  const currencies = await resolveCurrencies(db, params.query.currency);
  const base = typeof params.query.base === 'string' ? params.query.base.toUpperCase() : 'EUR';
  const requested = typeof params.query.date === 'string' ? params.query.date : null;
  const today = now.toISOString().slice(0, 10);
  if (requested !== null && requested > today)
    throw new ApiError(
      'invalid_parameter',
      `invalid parameter "date": ${requested} is after today (${today} UTC); expected ${PARAMS.date.expected}`,
    );
  const rows =
    requested === null ? await readLatestEcbRates(db, '') : await readRatesAtOrBefore(db, requested);
  const date = rows[0]?.date ?? null;
  const baseRow = base === 'EUR' ? null : (rows.find((row) => row.currency === base) ?? null);
  if (base !== 'EUR' && baseRow === null) throw unquotedBase(base, date, rows);
  const quotes = baseRow === null ? rows.map(eurRate) : await crossRates(db, rows, baseRow);
  const wanted = currencies === null ? null : new Set(currencies);
  const data = wanted === null ? quotes : quotes.filter((quote) => wanted.has(quote.currency));
  const terms = await readSourceTerms(db, 'ecb');
  return {
    data,
    meta: {
      filters: currencies === null ? {} : { currency: currencies.join(',') },
      date,
      requested_date: requested,
      base,
      method: baseRow === null ? EUR_RATE_METHOD : CROSS_RATE_METHOD,
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
      attribution: terms?.attribution ?? null,
      licence: terms?.licence ?? null,
    },
  };
};

/**
 * The requested currencies in upper case and request order (null: all). Each must be an ISO 4217
 * code (the reference list) and appear once; one the ECB does not quote is simply not found.
 */
async function resolveCurrencies(db: SnapshotDb, value: unknown): Promise<string[] | null> {
  if (typeof value !== 'string') return null;
  const codes = value.toUpperCase().split(',');
  const seen = new Set<string>();
  for (const code of codes) {
    if (!/^[A-Z]{3}$/.test(code)) throw invalidParameter('currency', FX_CURRENCY_PARAM.expected);
    if (seen.has(code)) throw invalidCurrency(`${code} is listed twice`);
    seen.add(code);
  }
  for (const code of codes) {
    if (!(await hasCurrency(db, code))) throw invalidCurrency(`${code} is not an ISO 4217 code`);
  }
  return codes;
}

function invalidCurrency(reason: string): ApiError {
  return new ApiError(
    'invalid_parameter',
    `invalid parameter "currency": ${reason}; expected ${FX_CURRENCY_PARAM.expected}`,
  );
}

/** The rates of the last reference date at or before `day`; 404 before the first one. */
async function readRatesAtOrBefore(db: SnapshotDb, day: string): Promise<EcbRateRow[]> {
  const date = await readEcbReferenceDate(db, day);
  if (date === null) {
    const { first } = await readEcbDateRange(db);
    throw new ApiError(
      'not_found',
      first === null
        ? `no ECB reference rates at or before ${day}: the snapshot holds none`
        : `no ECB reference rates at or before ${day}: the first reference date is ${first}`,
    );
  }
  return readEcbRatesOn(db, date);
}

function unquotedBase(base: string, date: string | null, rows: readonly EcbRateRow[]): ApiError {
  const quoted = ['EUR', ...rows.map((row) => row.currency)].sort().join(', ');
  return new ApiError(
    'invalid_parameter',
    date === null
      ? `invalid parameter "base": ${base} has no ECB reference rate in this snapshot; expected EUR`
      : `invalid parameter "base": ${base} has no ECB reference rate on ${date}; expected one of ${quoted}`,
  );
}

/** A euro reference rate as published. */
function eurRate(row: EcbRateRow): FxRate {
  return {
    currency: row.currency,
    currency_name: row.currency_name,
    rate: row.rate,
    base: 'EUR',
    date: row.date,
    observed_at: row.observed_at,
    observed_at_method: row.observed_at_method ?? 'collected',
    revision_number: row.revision_number,
    series_key: row.series_key,
  };
}

/**
 * Every other currency of the date per 1 unit of `base`, and EUR (1 / EUR->base), by currency.
 * A cross rate is known once both of its inputs are: observed_at is the later of the two (with
 * that one's method); revision_number and series_key are the quote's (EUR: the base's).
 */
async function crossRates(db: SnapshotDb, rows: readonly EcbRateRow[], base: EcbRateRow): Promise<FxRate[]> {
  const baseMethod = base.observed_at_method ?? 'collected';
  const rates: FxRate[] = rows
    .filter((row) => row.currency !== base.currency)
    .map((row) => {
      const baseLater = base.observed_at > row.observed_at;
      return {
        ...eurRate(row),
        rate: crossRate(row.rate, base.rate),
        base: base.currency,
        observed_at: baseLater ? base.observed_at : row.observed_at,
        observed_at_method: baseLater ? baseMethod : (row.observed_at_method ?? 'collected'),
      };
    });
  rates.push({
    currency: 'EUR',
    currency_name: await readCurrencyName(db, 'EUR'),
    rate: crossRate(1, base.rate),
    base: base.currency,
    date: base.date,
    observed_at: base.observed_at,
    observed_at_method: baseMethod,
    revision_number: base.revision_number,
    series_key: base.series_key,
  });
  return rates.sort((a, b) => (a.currency < b.currency ? -1 : a.currency > b.currency ? 1 : 0));
}
