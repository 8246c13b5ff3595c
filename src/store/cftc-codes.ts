import { SERVED_COT_REPORT_TYPES } from '../model/records.ts';
/**
 * What the CFTC's own codes in the COT files mean for the market list: the exchange code
 * ("CFTC Market Code in Initials") to an ISO 10383 MIC, and the commodity subgroup code
 * (`CFTC_SubGroup_Code`, disaggregated and TFF files) to a sector id of data/catalog/catalog.yaml.
 * docs/data-model.md (cot_markets) repeats both tables for readers of the API.
 */

/**
 * The exchange codes of the real files (legacy 2025, disaggregated 2021, TFF 2026) and KCBT,
 * each checked against the ISO 10383 list (all ACTIVE). An unknown code gives no MIC.
 */
export const CFTC_EXCHANGE_MICS: Readonly<Record<string, string>> = {
  CBT: 'XCBT', // Chicago Board of Trade
  CME: 'XCME', // Chicago Mercantile Exchange
  CMX: 'XCEC', // COMEX (Commodity Exchange Inc.), a NYMEX segment
  E: 'XCBF', // CBOE Futures Exchange
  FREX: 'FREX', // LMX Labs LLC = Coinbase Derivatives
  ICEU: 'IFEU', // ICE Futures Europe
  ICUS: 'IFUS', // ICE Futures U.S.
  IFED: 'IFED', // ICE Futures U.S. Energy Division, a segment of IFUS
  KCBT: 'XKBT', // Kansas City Board of Trade, now a CBOT segment
  MGE: 'XMGE', // Minneapolis Grain Exchange, now MIAX Futures
  NODX: 'NODX', // Nodal Exchange
  NYME: 'XNYM', // New York Mercantile Exchange
};

/**
 * Subgroup codes to sectors. The CFTC's groups: A = agriculture (A10 grains, A20 livestock,
 * A25 dairy, A30 oilseeds, A40 fibre, A50 softs, A70 fertiliser); N = natural resources (N10
 * petroleum, N13 natural gas, N16 electricity and coal, N20 precious metals, N25 base metals;
 * N30 forest products and N60 emissions and renewable certificates have no sector here); F =
 * financial (F10/F15 currencies, F20 equity indexes, F30 Treasuries, F33 short-term rates, F50
 * interest-rate swaps, F90 dollar index, F84/F85 digital assets). A code missing here, or a
 * market whose files carry none, gets no sector unless the catalog gives one.
 */
export const CFTC_SUBGROUP_SECTORS: Readonly<Record<string, string>> = {
  A10: 'agriculture',
  A20: 'agriculture',
  A25: 'agriculture',
  A30: 'agriculture',
  A40: 'agriculture',
  A50: 'agriculture',
  A70: 'agriculture',
  N10: 'energy',
  N13: 'energy',
  N16: 'energy',
  N20: 'metals',
  N25: 'metals',
  F10: 'rates-fx',
  F15: 'rates-fx',
  F20: 'equities',
  F30: 'rates-fx',
  F33: 'rates-fx',
  F50: 'rates-fx',
  F84: 'crypto',
  F85: 'crypto',
  F90: 'rates-fx',
};

/**
 * Commodity codes whose subgroup says the wrong thing of the market, to their sector. VIX (117)
 * is filed under F90 (other financial), which maps to rates-fx, but it is the implied volatility
 * of the S&P 500: an equity index market.
 */
export const CFTC_COMMODITY_SECTORS: Readonly<Record<string, string>> = {
  '117': 'equities',
};

/** The usual order of report types (the served list is in that order): the default comes first. */
export const REPORT_TYPE_ORDER = SERVED_COT_REPORT_TYPES;
