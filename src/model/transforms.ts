/**
 * The FRED-style transforms of endpoints 5 and 8 (docs/api/transforms.md): the codes a request
 * may give, and the facts about frequencies they depend on. Here in the vocabulary layer, below
 * query/ (which computes them) and contract/ (whose parameters and schemas state them).
 */

/** FRED's `units` codes, in FRED's order. */
export const TRANSFORM_UNITS = ['lin', 'chg', 'ch1', 'pch', 'pc1', 'pca', 'cch', 'cca', 'log'] as const;
export type TransformUnits = (typeof TRANSFORM_UNITS)[number];

/** The `frequency` codes the API aggregates to (FRED's `w` is weeks ending Friday). */
export const TRANSFORM_FREQUENCIES = ['w', 'm', 'q', 'a'] as const;
export type TransformFrequency = (typeof TRANSFORM_FREQUENCIES)[number];

/** FRED's `aggregation_method` codes; avg is the default, as on FRED. */
export const TRANSFORM_AGGREGATIONS = ['avg', 'sum', 'eop'] as const;
export type TransformAggregation = (typeof TRANSFORM_AGGREGATIONS)[number];

/** Decimals an average keeps beyond the most its inputs were published with (meta.transform.rounding). */
export const AVERAGE_EXTRA_DECIMALS = 4;

/** How computed values are rounded, stated in meta.transform.rounding (docs/api/transforms.md). */
export const TRANSFORM_ROUNDING =
  `Computed in decimal to the precision the source publishes, without binary noise: sum and the ` +
  `differences chg and ch1 are exact at the most decimals of their inputs; avg is rounded to those ` +
  `decimals plus ${AVERAGE_EXTRA_DECIMALS}; eop and lin are the published values; pch, pc1, pca, cch, ` +
  `cca and log are not rounded (full double precision). Raw values are never rounded.`;

/** The order the steps run in, stated in meta.transform.order. */
export const TRANSFORM_ORDER = ['as_of', 'aggregation', 'units'] as const;

/** A series frequency (vocabulary.ts FREQUENCIES), as the transforms need it. */
export type SeriesFrequency = 'daily' | 'weekly' | 'monthly' | 'quarterly' | 'annual';

/** The series frequency a frequency code aggregates to. */
export const FREQUENCY_OF_CODE: Readonly<Record<TransformFrequency, SeriesFrequency>> = {
  w: 'weekly',
  m: 'monthly',
  q: 'quarterly',
  a: 'annual',
};

/** FRED's n_obs_per_yr: observations per year of each frequency (daily: 260, no weekends). */
export const PERIODS_PER_YEAR: Readonly<Record<SeriesFrequency, number>> = {
  daily: 260,
  weekly: 52,
  monthly: 12,
  quarterly: 4,
  annual: 1,
};

/** The frequency codes a series of each frequency can be aggregated to: strictly coarser ones only. */
export const ALLOWED_FREQUENCIES: Readonly<Record<SeriesFrequency, readonly TransformFrequency[]>> = {
  daily: ['w', 'm', 'q', 'a'],
  weekly: ['m', 'q', 'a'],
  monthly: ['q', 'a'],
  quarterly: ['a'],
  annual: [],
};

/** Why a transformed value is null (data[].note, meta.transform.notes). */
export const TRANSFORM_NOTES = {
  no_previous_value: 'the previous period has no value (first period, a gap, or a null level)',
  no_year_ago_value: 'the period a year earlier has no value (or a null level)',
  non_positive_base: 'the base (the earlier value) is zero or negative: a ratio to it means nothing',
  non_positive_value: 'the value is zero or negative: it has no logarithm',
  negative_ratio: 'the value and its base have opposite signs: no compounded rate',
  incomplete_period:
    'the period is not fully covered by the values known at as_of: sum and eop are null for it',
  not_finite: 'the stored value or the result is not a finite number',
} as const;
export type TransformNote = keyof typeof TRANSFORM_NOTES;
