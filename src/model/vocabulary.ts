/**
 * The words of the data model that every record uses: verification statuses, data classes, rights,
 * frequencies, COT report types (stored and served) and scopes, timestamps. Here, below records.ts and
 * reference-records.ts, so that both can use them (records.ts re-exports them).
 */

/** CONTRACT section 5: how far a value has been checked. */
export const VERIFICATION_STATUSES = ['unverified', 'verified', 'disputed'] as const;
export type VerificationStatus = (typeof VERIFICATION_STATUSES)[number];

/** CONTRACT section 5: where a value comes from. */
export const DATA_CLASSES = ['official', 'derived', 'estimate'] as const;
export type DataClass = (typeof DATA_CLASSES)[number];

/** CONTRACT section 5: rights classes; the first two are redistributable. */
export const RIGHTS = ['public_domain', 'open_licence', 'licensed', 'proprietary'] as const;
export type Rights = (typeof RIGHTS)[number];
export const REDISTRIBUTABLE_RIGHTS: readonly Rights[] = ['public_domain', 'open_licence'];

export const FREQUENCIES = ['daily', 'weekly', 'monthly', 'quarterly', 'annual'] as const;
export type Frequency = (typeof FREQUENCIES)[number];

/** COT report types: the three main reports and the Commodity Index Trader supplement (`cit`). */
export const COT_REPORT_TYPES = ['legacy', 'disaggregated', 'tff', 'cit'] as const;
export type CotReportType = (typeof COT_REPORT_TYPES)[number];

/** Whether a COT report counts futures only or futures and options combined (the CIT report). */
export const COT_SCOPES = ['futures_only', 'combined'] as const;
export type CotScope = (typeof COT_SCOPES)[number];

/**
 * Report types endpoint 3 serves per market: the futures-only reports under their own names, the
 * futures-and-options combined ones with `_combined` (series `cftc.<code>.<type>.combined`), and
 * the Commodity Index Trader supplement `cit` (combined by nature: `cftc.<code>.cit.combined`).
 */
export const SERVED_COT_REPORT_TYPES = [
  'legacy',
  'disaggregated',
  'tff',
  'legacy_combined',
  'disaggregated_combined',
  'tff_combined',
  'cit',
] as const;

/** Timestamps are RFC 3339 UTC strings with a `Z` (`2025-03-14T19:30:00Z`). */
export type Timestamp = string;
