/**
 * Column map of the CFTC Supplemental Commodity Index Traders (CIT) text file (`annualci.txt`
 * in `dea_cit_txt_<year>.zip`), read from a real 2024 file (test/fixtures/cftc/README.md).
 * The report exists only for futures and options combined, for a dozen agricultural markets.
 * Its commercial and non-commercial columns exclude the index traders (`_NoCIT`), who are a
 * category of their own. Names keep the CFTC's spellings: `NComm_Postions_Spread_All_NoCIT`,
 * `Change_NonComm_Spead_All_NoCIT`, and `Change_Comm_Short_All_NoCIT` (published with a trailing
 * space, matched after trimming).
 */
import type { ReportLayout } from './cftc-layout.ts';

/** The CIT layout; it publishes no concentration ratios and no subgroup code. */
export const CIT_LAYOUT: ReportLayout = {
  reportType: 'cit',
  // No concentration ratios, no crop years: nothing is stored beside the report.
  extras: null,
  marker: 'CIT_Positions_Long_All',
  marketName: 'Market_and_Exchange_Names',
  dateYymmdd: 'As_of_Date_In_Form_YYMMDD',
  dateIso: 'As_of_Date_In_Form_YYYY-MM-DD',
  marketCode: 'CFTC_Contract_Market_Code',
  exchangeCode: 'CFTC_Market_Code',
  regionCode: 'CFTC_Region_Code',
  commodityCode: 'CFTC_Commodity_Code',
  subgroupCode: null,
  contractUnits: 'Contract_Units',
  scope: null,
  fixedScope: 'combined',
  totals: {
    open_interest: 'Open_Interest_All',
    change_open_interest: 'Change_Open_Interest_All',
    traders_total: 'Traders_Tot_All',
    conc_gross_le4_long: null,
    conc_gross_le4_short: null,
    conc_gross_le8_long: null,
    conc_gross_le8_short: null,
  },
  categories: [
    {
      // Non-commercial traders other than index traders.
      category: 'noncommercial',
      columns: {
        long: 'NComm_Positions_Long_All_NoCIT',
        short: 'NComm_Positions_Short_All_NoCIT',
        spread: 'NComm_Postions_Spread_All_NoCIT',
        change_long: 'Change_NonComm_Long_All_NoCIT',
        change_short: 'Change_NonComm_Short_All_NoCIT',
        change_spread: 'Change_NonComm_Spead_All_NoCIT',
        pct_oi_long: 'Pct_OI_NonComm_Long_All_NoCIT',
        pct_oi_short: 'Pct_OI_NonComm_Short_All_NoCIT',
        pct_oi_spread: 'Pct_OI_NonComm_Spread_All_NoCIT',
        traders_long: 'Traders_NonComm_Long_All_NoCIT',
        traders_short: 'Traders_NonComm_Short_All_NoCIT',
        traders_spread: 'Traders_NonComm_Spread_All_NoCIT',
      },
    },
    {
      // Commercial traders other than index traders.
      category: 'commercial',
      columns: {
        long: 'Comm_Positions_Long_All_NoCIT',
        short: 'Comm_Positions_Short_All_NoCIT',
        change_long: 'Change_Comm_Long_All_NoCIT',
        change_short: 'Change_Comm_Short_All_NoCIT',
        pct_oi_long: 'Pct_OI_Comm_Long_All_NoCIT',
        pct_oi_short: 'Pct_OI_Comm_Short_All_NoCIT',
        traders_long: 'Traders_Comm_Long_All_NoCIT',
        traders_short: 'Traders_Comm_Short_All_NoCIT',
      },
    },
    {
      category: 'index_trader',
      columns: {
        long: 'CIT_Positions_Long_All',
        short: 'CIT_Positions_Short_All',
        change_long: 'Change_CIT_Long_All',
        change_short: 'Change_CIT_Short_All',
        pct_oi_long: 'Pct_OI_CIT_Long_All',
        pct_oi_short: 'Pct_OI_CIT_Short_All',
        traders_long: 'Traders_CIT_Long_All',
        traders_short: 'Traders_CIT_Short_All',
      },
    },
    {
      category: 'total_reportable',
      columns: {
        long: 'Tot_Rept_Positions_Long_All',
        short: 'Tot_Rept_Positions_Short_All',
        change_long: 'Change_Tot_Rept_Long_All',
        change_short: 'Change_Tot_Rept_Short_All',
        pct_oi_long: 'Pct_OI_Tot_Rept_Long_All',
        pct_oi_short: 'Pct_OI_Tot_Rept_Short_All',
        traders_long: 'Traders_Tot_Rept_Long_All',
        traders_short: 'Traders_Tot_Rept_Short_All',
      },
    },
    {
      // Index traders are reportable by definition, so nothing is taken out of this one.
      category: 'nonreportable',
      columns: {
        long: 'NonRept_Positions_Long_All',
        short: 'NonRept_Positions_Short_All',
        change_long: 'Change_NonRept_Long_All',
        change_short: 'Change_NonRept_Short_All',
        pct_oi_long: 'Pct_OI_NonRept_Long_All_NoCIT',
        pct_oi_short: 'Pct_OI_NonRept_Short_All_NoCIT',
      },
    },
  ],
};
