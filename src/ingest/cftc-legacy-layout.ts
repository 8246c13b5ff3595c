/**
 * The legacy COT report's columns (cftc-columns.ts adds its extras): the names of the CFTC's
 * legacy files, 2004 to 2025, trimmed, in the CFTC's own spelling (`LT =4`).
 */
import type { ReportLayout } from './cftc-layout.ts';

export const LEGACY_BASE: Omit<ReportLayout, 'extras'> = {
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
