/**
 * The rows of endpoint 11 from the ECB euro rates of one reference date: as published (base EUR,
 * amount 1), or each rate converted to another base and amount (fx-cross-rate.ts).
 */
import type { EcbRateRow } from '../../query/fx.ts';
import { crossRate } from './fx-cross-rate.ts';

/** One rate of the payload: units of `currency` per `amount` of `base`. */
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

/** What to convert the euro rates to: a base currency and an amount of it (decimal text). */
export interface FxConversion {
  base: string;
  amount: string;
  /** The ISO 4217 name of the euro, for EUR as a quote of another base. */
  euroName: string | null;
}

/** Whether a conversion leaves the ECB's rates as published (base EUR, amount 1). */
export function isAsPublished(conversion: FxConversion): boolean {
  return conversion.base === 'EUR' && Number(conversion.amount) === 1;
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
 * The rates of one reference date (`rows`: every euro rate of that date that is asked for, and the
 * base's) per `amount` of the base, by currency; null when the base has no rate that date. A
 * computed rate is known once both of its inputs are: observed_at is the later of the two (with
 * that one's method); revision_number and series_key are the quote's (EUR as quote: the base's).
 */
export function convertRates(rows: readonly EcbRateRow[], conversion: FxConversion): FxRate[] | null {
  if (isAsPublished(conversion)) return rows.map(eurRate);
  const { base: code, amount } = conversion;
  const base = code === 'EUR' ? null : rows.find((row) => row.currency === code);
  if (base === undefined) return null;
  const baseRate = base?.rate ?? 1;
  const rates: FxRate[] = rows
    .filter((row) => row.currency !== code)
    .map((row) => {
      const baseLater = base !== null && base.observed_at > row.observed_at;
      return {
        ...eurRate(row),
        rate: crossRate(row.rate, baseRate, amount),
        base: code,
        observed_at: baseLater ? base.observed_at : row.observed_at,
        observed_at_method: (baseLater ? base.observed_at_method : row.observed_at_method) ?? 'collected',
      };
    });
  if (base !== null)
    rates.push({
      currency: 'EUR',
      currency_name: conversion.euroName,
      rate: crossRate(1, base.rate, amount),
      base: code,
      date: base.date,
      observed_at: base.observed_at,
      observed_at_method: base.observed_at_method ?? 'collected',
      revision_number: base.revision_number,
      series_key: base.series_key,
    });
  return rates.sort((a, b) => (a.currency < b.currency ? -1 : a.currency > b.currency ? 1 : 0));
}
