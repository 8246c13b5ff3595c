/**
 * Column maps of the CFTC Commitments of Traders text files, one per report type (futures-only
 * and combined files share a layout). Names are the published header names after trimming (the
 * legacy file writes `" Total Reportable Positions-Long (All)"` with a leading space) and keep
 * the CFTC's own spellings (`Swap__Positions_Short_All`, `LT = 4` beside `LT =4`). Only the
 * "All" columns are mapped; the Old/Other crop-year splits are not read.
 */
import type { CotPosition, CotReportType, CotScope } from '../model/records.ts';
import { CIT_LAYOUT } from './cftc-cit-layout.ts';

/** The numeric fields of one trader category. */
export type PositionField = Exclude<keyof CotPosition, 'category'>;

/** The numeric fields of a whole report. */
export type ReportField =
  | 'open_interest'
  | 'change_open_interest'
  | 'traders_total'
  | 'conc_gross_le4_long'
  | 'conc_gross_le4_short'
  | 'conc_gross_le8_long'
  | 'conc_gross_le8_short';

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
}

/** Percentages (of open interest, concentration) may have decimals; every other field is a count. */
export function isPercentField(field: PositionField | ReportField): boolean {
  return field.startsWith('pct_') || field.startsWith('conc_');
}

// The disaggregated and TFF formats share their identity, total and last three category columns.
const UNDERSCORE_IDENTITY = {
  marketName: 'Market_and_Exchange_Names',
  dateYymmdd: 'As_of_Date_In_Form_YYMMDD',
  dateIso: 'Report_Date_as_YYYY-MM-DD',
  marketCode: 'CFTC_Contract_Market_Code',
  exchangeCode: 'CFTC_Market_Code',
  regionCode: 'CFTC_Region_Code',
  commodityCode: 'CFTC_Commodity_Code',
  subgroupCode: 'CFTC_SubGroup_Code',
  contractUnits: 'Contract_Units',
  scope: 'FutOnly_or_Combined',
  fixedScope: null,
  totals: {
    open_interest: 'Open_Interest_All',
    change_open_interest: 'Change_in_Open_Interest_All',
    traders_total: 'Traders_Tot_All',
    conc_gross_le4_long: 'Conc_Gross_LE_4_TDR_Long_All',
    conc_gross_le4_short: 'Conc_Gross_LE_4_TDR_Short_All',
    conc_gross_le8_long: 'Conc_Gross_LE_8_TDR_Long_All',
    conc_gross_le8_short: 'Conc_Gross_LE_8_TDR_Short_All',
  },
} as const satisfies Partial<ReportLayout>;

/** Columns named `<Prefix>_Positions_Long_All`, `Change_in_<Prefix>_Long_All`, ... with spreads. */
function defineUnderscoreCategory(category: string, prefix: string): CategoryColumns {
  return {
    category,
    columns: {
      long: `${prefix}_Positions_Long_All`,
      short: `${prefix}_Positions_Short_All`,
      spread: `${prefix}_Positions_Spread_All`,
      change_long: `Change_in_${prefix}_Long_All`,
      change_short: `Change_in_${prefix}_Short_All`,
      change_spread: `Change_in_${prefix}_Spread_All`,
      pct_oi_long: `Pct_of_OI_${prefix}_Long_All`,
      pct_oi_short: `Pct_of_OI_${prefix}_Short_All`,
      pct_oi_spread: `Pct_of_OI_${prefix}_Spread_All`,
      traders_long: `Traders_${prefix}_Long_All`,
      traders_short: `Traders_${prefix}_Short_All`,
      traders_spread: `Traders_${prefix}_Spread_All`,
    },
  };
}

const UNDERSCORE_TAIL: readonly CategoryColumns[] = [
  defineUnderscoreCategory('other_reportable', 'Other_Rept'),
  {
    category: 'total_reportable',
    columns: {
      long: 'Tot_Rept_Positions_Long_All',
      short: 'Tot_Rept_Positions_Short_All',
      change_long: 'Change_in_Tot_Rept_Long_All',
      change_short: 'Change_in_Tot_Rept_Short_All',
      pct_oi_long: 'Pct_of_OI_Tot_Rept_Long_All',
      pct_oi_short: 'Pct_of_OI_Tot_Rept_Short_All',
      traders_long: 'Traders_Tot_Rept_Long_All',
      traders_short: 'Traders_Tot_Rept_Short_All',
    },
  },
  {
    // The CFTC counts no nonreportable traders.
    category: 'nonreportable',
    columns: {
      long: 'NonRept_Positions_Long_All',
      short: 'NonRept_Positions_Short_All',
      change_long: 'Change_in_NonRept_Long_All',
      change_short: 'Change_in_NonRept_Short_All',
      pct_oi_long: 'Pct_of_OI_NonRept_Long_All',
      pct_oi_short: 'Pct_of_OI_NonRept_Short_All',
    },
  },
];

const LEGACY: ReportLayout = {
  reportType: 'legacy',
  marker: 'Market and Exchange Names',
  marketName: 'Market and Exchange Names',
  dateYymmdd: 'As of Date in Form YYMMDD',
  dateIso: 'As of Date in Form YYYY-MM-DD',
  marketCode: 'CFTC Contract Market Code',
  exchangeCode: 'CFTC Market Code in Initials',
  regionCode: 'CFTC Region Code',
  commodityCode: 'CFTC Commodity Code',
  subgroupCode: null,
  contractUnits: 'Contract Units',
  // The legacy header is the same in the futures-only and the combined file: the caller says.
  scope: null,
  fixedScope: null,
  totals: {
    open_interest: 'Open Interest (All)',
    change_open_interest: 'Change in Open Interest (All)',
    traders_total: 'Traders-Total (All)',
    conc_gross_le4_long: 'Concentration-Gross LT = 4 TDR-Long (All)',
    conc_gross_le4_short: 'Concentration-Gross LT =4 TDR-Short (All)',
    conc_gross_le8_long: 'Concentration-Gross LT =8 TDR-Long (All)',
    conc_gross_le8_short: 'Concentration-Gross LT =8 TDR-Short (All)',
  },
  categories: [
    {
      category: 'noncommercial',
      columns: {
        long: 'Noncommercial Positions-Long (All)',
        short: 'Noncommercial Positions-Short (All)',
        spread: 'Noncommercial Positions-Spreading (All)',
        change_long: 'Change in Noncommercial-Long (All)',
        change_short: 'Change in Noncommercial-Short (All)',
        change_spread: 'Change in Noncommercial-Spreading (All)',
        pct_oi_long: '% of OI-Noncommercial-Long (All)',
        pct_oi_short: '% of OI-Noncommercial-Short (All)',
        pct_oi_spread: '% of OI-Noncommercial-Spreading (All)',
        traders_long: 'Traders-Noncommercial-Long (All)',
        traders_short: 'Traders-Noncommercial-Short (All)',
        traders_spread: 'Traders-Noncommercial-Spreading (All)',
      },
    },
    {
      category: 'commercial',
      columns: {
        long: 'Commercial Positions-Long (All)',
        short: 'Commercial Positions-Short (All)',
        change_long: 'Change in Commercial-Long (All)',
        change_short: 'Change in Commercial-Short (All)',
        pct_oi_long: '% of OI-Commercial-Long (All)',
        pct_oi_short: '% of OI-Commercial-Short (All)',
        traders_long: 'Traders-Commercial-Long (All)',
        traders_short: 'Traders-Commercial-Short (All)',
      },
    },
    {
      category: 'total_reportable',
      columns: {
        long: 'Total Reportable Positions-Long (All)',
        short: 'Total Reportable Positions-Short (All)',
        change_long: 'Change in Total Reportable-Long (All)',
        change_short: 'Change in Total Reportable-Short (All)',
        pct_oi_long: '% of OI-Total Reportable-Long (All)',
        pct_oi_short: '% of OI-Total Reportable-Short (All)',
        traders_long: 'Traders-Total Reportable-Long (All)',
        traders_short: 'Traders-Total Reportable-Short (All)',
      },
    },
    {
      category: 'nonreportable',
      columns: {
        long: 'Nonreportable Positions-Long (All)',
        short: 'Nonreportable Positions-Short (All)',
        change_long: 'Change in Nonreportable-Long (All)',
        change_short: 'Change in Nonreportable-Short (All)',
        pct_oi_long: '% of OI-Nonreportable-Long (All)',
        pct_oi_short: '% of OI-Nonreportable-Short (All)',
      },
    },
  ],
};

const SWAP = defineUnderscoreCategory('swap_dealer', 'Swap');

const DISAGGREGATED: ReportLayout = {
  reportType: 'disaggregated',
  marker: 'Prod_Merc_Positions_Long_All',
  ...UNDERSCORE_IDENTITY,
  categories: [
    {
      // Producers/merchants are published without spreads.
      category: 'producer_merchant',
      columns: {
        long: 'Prod_Merc_Positions_Long_All',
        short: 'Prod_Merc_Positions_Short_All',
        change_long: 'Change_in_Prod_Merc_Long_All',
        change_short: 'Change_in_Prod_Merc_Short_All',
        pct_oi_long: 'Pct_of_OI_Prod_Merc_Long_All',
        pct_oi_short: 'Pct_of_OI_Prod_Merc_Short_All',
        traders_long: 'Traders_Prod_Merc_Long_All',
        traders_short: 'Traders_Prod_Merc_Short_All',
      },
    },
    {
      category: 'swap_dealer',
      columns: {
        ...SWAP.columns,
        // The CFTC's own double underscore, in these two position columns only.
        short: 'Swap__Positions_Short_All',
        spread: 'Swap__Positions_Spread_All',
      },
    },
    defineUnderscoreCategory('managed_money', 'M_Money'),
    ...UNDERSCORE_TAIL,
  ],
};

const TFF: ReportLayout = {
  reportType: 'tff',
  marker: 'Dealer_Positions_Long_All',
  ...UNDERSCORE_IDENTITY,
  categories: [
    defineUnderscoreCategory('dealer', 'Dealer'),
    defineUnderscoreCategory('asset_manager', 'Asset_Mgr'),
    defineUnderscoreCategory('leveraged_funds', 'Lev_Money'),
    ...UNDERSCORE_TAIL,
  ],
};

/** The four report types, recognised by their marker column. */
export const REPORT_LAYOUTS: readonly ReportLayout[] = [LEGACY, DISAGGREGATED, TFF, CIT_LAYOUT];

/** Every column a layout reads, for checking a header before the rows. */
export function listLayoutColumns(layout: ReportLayout): string[] {
  const identity = [
    layout.marketName,
    layout.dateYymmdd,
    layout.dateIso,
    layout.marketCode,
    layout.exchangeCode,
    layout.regionCode,
    layout.commodityCode,
    layout.contractUnits,
  ];
  const optional = [layout.subgroupCode, layout.scope, ...Object.values(layout.totals)];
  const categories = layout.categories.flatMap((entry) => Object.values(entry.columns));
  return [...identity, ...optional.filter((column) => column !== null), ...categories];
}
