/**
 * What a request of endpoint 11 asks (currencies, base, amount), checked against the snapshot, the
 * meta every answer of it shares, and its refusals.
 */
import { ApiError, invalidParameter } from '../../contract/errors.ts';
import { FX_CURRENCY_PARAM } from '../../contract/fx-params.ts';
import type { RequestParams } from '../../contract/parse-request.ts';
import { readSourceTerms } from '../../query/catalog.ts';
import { type EcbRateRow, readCurrencyName, readEcbDateRange } from '../../query/fx.ts';
import { hasCurrency } from '../../query/reference-codes.ts';
import type { SnapshotDb } from '../../query/snapshot-db.ts';
import {
  CROSS_RATE_METHOD,
  CROSS_RATE_ROUNDING,
  EUR_AMOUNT_METHOD,
  EUR_RATE_METHOD,
} from './fx-cross-rate.ts';
import { type FxConversion, isAsPublished } from './fx-rows.ts';

/** What one request of endpoint 11 asks, validated. */
export interface FxRequest {
  /** The requested currencies in upper case and request order; null: every one quoted. */
  currencies: string[] | null;
  /** Which parameter named them (`currency` or `symbols`), for meta.filters. */
  filterName: 'currency' | 'symbols';
  conversion: FxConversion;
}

/** The meta every answer of endpoint 11 shares: filters, base, amount, how rates were made, terms. */
export async function describeRequest(db: SnapshotDb, request: FxRequest) {
  const { conversion, currencies, filterName } = request;
  const terms = await readSourceTerms(db, 'ecb');
  const asPublished = isAsPublished(conversion);
  return {
    filters: currencies === null ? {} : { [filterName]: currencies.join(',') },
    base: conversion.base,
    amount: Number(conversion.amount),
    method: asPublished ? EUR_RATE_METHOD : conversion.base === 'EUR' ? EUR_AMOUNT_METHOD : CROSS_RATE_METHOD,
    rounding: asPublished ? 'none: the rates as the ECB published them' : CROSS_RATE_ROUNDING,
    attribution: terms?.attribution ?? null,
    licence: terms?.licence ?? null,
  };
}

/** The currencies, base and amount of a request, each checked. */
export async function resolveFxRequest(db: SnapshotDb, params: RequestParams): Promise<FxRequest> {
  const { currency, symbols, base, amount } = params.query;
  if (currency !== undefined && symbols !== undefined)
    throw invalidParameter('symbols', 'either currency or symbols (its Frankfurter name), not both');
  const filterName = symbols !== undefined ? 'symbols' : 'currency';
  return {
    currencies: await resolveCurrencies(db, filterName, currency ?? symbols),
    filterName,
    conversion: {
      base: typeof base === 'string' ? base.toUpperCase() : 'EUR',
      amount: typeof amount === 'string' ? amount : '1',
      euroName: await readCurrencyName(db, 'EUR'),
    },
  };
}

/**
 * The requested currencies in upper case and request order (null: all). Each must be an ISO 4217
 * code (the reference list) and appear once; one the ECB does not quote is simply not found.
 */
async function resolveCurrencies(db: SnapshotDb, name: string, value: unknown): Promise<string[] | null> {
  if (typeof value !== 'string') return null;
  const codes = value.toUpperCase().split(',');
  const seen = new Set<string>();
  for (const code of codes) {
    if (!/^[A-Z]{3}$/.test(code)) throw invalidParameter(name, FX_CURRENCY_PARAM.expected);
    if (seen.has(code)) throw invalidCurrency(name, `${code} is listed twice`);
    seen.add(code);
  }
  for (const code of codes) {
    if (!(await hasCurrency(db, code))) throw invalidCurrency(name, `${code} is not an ISO 4217 code`);
  }
  return codes;
}

function invalidCurrency(name: string, reason: string): ApiError {
  return new ApiError(
    'invalid_parameter',
    `invalid parameter "${name}": ${reason}; expected ${FX_CURRENCY_PARAM.expected}`,
  );
}

/** 404: the snapshot holds no reference date at or before `day`. */
export async function noRatesBefore(db: SnapshotDb, day: string): Promise<ApiError> {
  const { first } = await readEcbDateRange(db);
  return new ApiError(
    'not_found',
    first === null
      ? `no ECB reference rates at or before ${day}: the snapshot holds none`
      : `no ECB reference rates at or before ${day}: the first reference date is ${first}`,
  );
}

/** 400: the base has no rate on the date (or in the range) asked for. */
export function unquotedBase(base: string, date: string | null, rows: readonly EcbRateRow[]): ApiError {
  const quoted = [...new Set(['EUR', ...rows.map((row) => row.currency)])].sort().join(', ');
  return new ApiError(
    'invalid_parameter',
    date === null
      ? `invalid parameter "base": ${base} has no ECB reference rate in this snapshot; expected EUR`
      : `invalid parameter "base": ${base} has no ECB reference rate on ${date}; expected one of ${quoted}`,
  );
}
