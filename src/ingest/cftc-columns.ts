/**
 * Column maps of the CFTC Commitments of Traders text files, one per report type (futures-only
 * and combined files share a layout). Names are the published header names after trimming (the
 * legacy file writes `" Total Reportable Positions-Long (All)"` with a leading space) and keep
 * the CFTC's own spellings (`Swap__Positions_Short_All`, `LT = 4` beside `LT =4`). The "All"
 * columns make the report (cot_reports); the net concentration ratios and the Old/Other crop-year
 * columns are its `extras`, stored beside it (cot_report_columns, docs/data-model.md).
 */
import { CIT_LAYOUT } from './cftc-cit-layout.ts';
import { LEGACY_BASE } from './cftc-legacy-layout.ts';

export * from './cftc-layout.ts';

import {
  type CategoryColumns,
  CROP_FIELDS,
  type CropField,
  type CropYearColumns,
  type NetField,
  type PositionField,
  type ReportExtras,
  type ReportField,
  type ReportLayout,
} from './cftc-layout.ts';

/** Percentages (of open interest, concentration) may have decimals; every other field is a count. */
export function isPercentField(field: PositionField | ReportField | CropField): boolean {
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

const CHANGE_FIELDS = new Set<PositionField>(['change_long', 'change_short', 'change_spread']);

/**
 * The extras of a family: its net concentration columns, and per crop year the report's totals
 * and categories renamed by `rename` (from the "All" name to the crop year's), changes left out.
 */
function defineExtras(
  layout: Pick<ReportLayout, 'totals' | 'categories'>,
  net: Record<NetField, string>,
  rename: ((all: string, crop: 'Old' | 'Other') => string) | null,
): ReportExtras {
  if (rename === null) return { net, cropYears: [] };
  const cropYears = (['Old', 'Other'] as const).map((crop): CropYearColumns => {
    const all: Record<CropField, string | null> = { ...layout.totals, ...net };
    const totals = Object.fromEntries(
      CROP_FIELDS.map((field) => [field, rename(all[field] ?? '', crop)]),
    ) as Record<CropField, string>;
    const categories = layout.categories.map(({ category, columns }) => ({
      category,
      columns: Object.fromEntries(
        Object.entries(columns)
          .filter(([field]) => !CHANGE_FIELDS.has(field as PositionField))
          .map(([field, column]) => [field, rename(column, crop)]),
      ),
    }));
    return { crop: crop === 'Old' ? 'old' : 'other', totals, categories };
  });
  return { net, cropYears };
}

/** `..._All` to `..._Old` / `..._Other`: the disaggregated names. */
const underscoreCrop = (all: string, crop: 'Old' | 'Other') => all.replace(/_All$/, `_${crop}`);

/**
 * `... (All)` to `... (Old)` / `... (Other)`: the legacy names, where `LT = 4` is `LT =4` and the
 * gross short ratios of the other crop year are written without the space, `-Short(Other)`.
 */
function legacyCrop(all: string, crop: 'Old' | 'Other'): string {
  const base = all.replace('LT = 4', 'LT =4').replace(/ \(All\)$/, '');
  return crop === 'Other' && /^Concentration-Gross .*-Short$/.test(base)
    ? `${base}(Other)`
    : `${base} (${crop})`;
}

const UNDERSCORE_NET: Record<NetField, string> = {
  conc_net_le4_long: 'Conc_Net_LE_4_TDR_Long_All',
  conc_net_le4_short: 'Conc_Net_LE_4_TDR_Short_All',
  conc_net_le8_long: 'Conc_Net_LE_8_TDR_Long_All',
  conc_net_le8_short: 'Conc_Net_LE_8_TDR_Short_All',
};

const LEGACY: ReportLayout = {
  ...LEGACY_BASE,
  extras: defineExtras(
    LEGACY_BASE,
    {
      conc_net_le4_long: 'Concentration-Net LT =4 TDR-Long (All)',
      conc_net_le4_short: 'Concentration-Net LT =4 TDR-Short (All)',
      conc_net_le8_long: 'Concentration-Net LT =8 TDR-Long (All)',
      conc_net_le8_short: 'Concentration-Net LT =8 TDR-Short (All)',
    },
    legacyCrop,
  ),
};

const SWAP = defineUnderscoreCategory('swap_dealer', 'Swap');

const DISAGGREGATED_BASE: Omit<ReportLayout, 'extras'> = {
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

const DISAGGREGATED: ReportLayout = {
  ...DISAGGREGATED_BASE,
  extras: defineExtras(DISAGGREGATED_BASE, UNDERSCORE_NET, underscoreCrop),
};

const TFF_BASE: Omit<ReportLayout, 'extras'> = {
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

/** The TFF report has no crop years: its extras are the net concentration ratios. */
const TFF: ReportLayout = { ...TFF_BASE, extras: defineExtras(TFF_BASE, UNDERSCORE_NET, null) };

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
  const extras =
    layout.extras === null
      ? []
      : [
          ...Object.values(layout.extras.net),
          ...layout.extras.cropYears.flatMap((crop) => [
            ...Object.values(crop.totals),
            ...crop.categories.flatMap((entry) => Object.values(entry.columns)),
          ]),
        ];
  return [...identity, ...optional.filter((column) => column !== null), ...categories, ...extras];
}
