/**
 * The shape of a CFTC Commitments of Traders column map (cftc-columns.ts holds one per report
 * type, cftc-cit-layout.ts the CIT one): the fields of a report, of a trader category and of a crop
 * year, and the columns that carry them. cftc-columns.ts re-exports it.
 */
import type { CotPosition, CotReportField, CotReportType, CotScope } from '../model/records.ts';

/** The numeric fields of one trader category. */
export type PositionField = Exclude<keyof CotPosition, 'category'>;

/** The numeric fields of a whole report. */
export type ReportField = CotReportField;

/** The net concentration ratios of a report (or of one crop year). */
export type NetField =
  | 'conc_net_le4_long'
  | 'conc_net_le4_short'
  | 'conc_net_le8_long'
  | 'conc_net_le8_short';

export const NET_FIELDS: readonly NetField[] = [
  'conc_net_le4_long',
  'conc_net_le4_short',
  'conc_net_le8_long',
  'conc_net_le8_short',
];

/** The totals of one crop year: no change of open interest is published per crop year. */
export type CropField =
  | 'open_interest'
  | 'traders_total'
  | 'conc_gross_le4_long'
  | 'conc_gross_le4_short'
  | 'conc_gross_le8_long'
  | 'conc_gross_le8_short'
  | NetField;

export const CROP_FIELDS: readonly CropField[] = [
  'open_interest',
  'traders_total',
  'conc_gross_le4_long',
  'conc_gross_le4_short',
  'conc_gross_le8_long',
  'conc_gross_le8_short',
  ...NET_FIELDS,
];

/** The columns of one crop year (`old`, `other`) of a legacy or disaggregated report. */
export interface CropYearColumns {
  crop: 'old' | 'other';
  totals: Record<CropField, string>;
  /** The report's categories, without the change fields (not published per crop year). */
  categories: readonly CategoryColumns[];
}

/** The columns stored beside a report (cot_report_columns): net concentration, crop years. */
export interface ReportExtras {
  net: Record<NetField, string>;
  /** Empty where the family has no crop years (TFF). */
  cropYears: readonly CropYearColumns[];
}

/** One trader category; a field without a column is one the CFTC does not publish (it reads as null). */
export interface CategoryColumns {
  category: string;
  columns: Partial<Record<PositionField, string>>;
}

/** Everything the parser reads from one report type. */
export interface ReportLayout {
  reportType: CotReportType;
  /** A column only this report type has, used to recognise the file. */
  marker: string;
  marketName: string;
  dateYymmdd: string;
  dateIso: string;
  marketCode: string;
  /** The CFTC's own codes of the market: exchange initials, region, commodity, subgroup. */
  exchangeCode: string;
  regionCode: string;
  commodityCode: string;
  /** `CFTC_SubGroup_Code`: only the disaggregated and TFF files carry it. */
  subgroupCode: string | null;
  contractUnits: string;
  /** `FutOnly_or_Combined`, where the format has it: says whether options are included. */
  scope: string | null;
  /** The scope of every file of this layout, where the report exists in one scope only (CIT). */
  fixedScope: CotScope | null;
  /** A null column is a figure the report does not publish (CIT: no concentration ratios). */
  totals: Record<ReportField, string | null>;
  categories: readonly CategoryColumns[];
  /** The columns stored beside the report; null where the family has none (CIT). */
  extras: ReportExtras | null;
}
