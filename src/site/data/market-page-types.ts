/** What the market pages of the site show (market-pages.ts fills them). */
/** A market as the market list shows it. */
export interface MarketListItem {
  slug: string;
  name: string;
  /** Exchange name, or '' where the files give none. */
  exchange: string;
  /** Sector id and display name ('' and 'Other' for a market of no sector). */
  sector: string;
  sectorName: string;
  reportTypes: string[];
  latestDate: string | null;
  openInterest: string;
}

/** One trader category of the latest report, formatted for the table. */
export interface CategoryRow {
  category: string;
  long: string;
  short: string;
  spread: string;
  net: string;
  changeNet: string;
  pctLong: string;
  pctShort: string;
  pctSpread: string;
}

/**
 * One trader category's analytics of the latest report, formatted: where its net stands in the
 * 26, 52 and 156 reports up to it (COT Index, 0-100) and its 52-report z-score, as endpoint 3
 * serves them (docs/api/cot-analytics.md); a dash while a window is not full.
 */
export interface AnalyticsRow {
  category: string;
  cotIndex26: string;
  cotIndex52: string;
  cotIndex156: string;
  zScore52: string;
}

/** The charts and latest report of one report type of a market. */
export interface ReportTypeSection {
  type: string;
  label: string;
  reports: number;
  from: string;
  to: string;
  netChart: string;
  /**
   * The 52-report COT Index per category of the public reports (each computed over the 52 reports
   * up to it, as endpoint 3 serves it), or null while none of them has 52 reports behind it.
   */
  indexChart: string | null;
  latest: {
    date: string;
    releasedAt: string;
    openInterest: string;
    changeOpenInterest: string;
    tradersTotal: string;
    rows: CategoryRow[];
    /** The latest report's analytics per category, or null while every window is short of reports. */
    analytics: AnalyticsRow[] | null;
  };
}

/** Everything the page of one market shows. */
export interface MarketPage {
  slug: string;
  name: string;
  code: string;
  exchange: string;
  mic: string | null;
  /** Sector display name ('Other' for a market of no sector). */
  sector: string;
  /** Names the market was published under before its current one, newest first. */
  formerNames: string[];
  contractUnits: string | null;
  sections: ReportTypeSection[];
  /** Report types the market is tracked in but that have no report in the snapshot. */
  missingTypes: string[];
  openInterestChart: string | null;
  attribution: string | null;
  licence: string | null;
}
