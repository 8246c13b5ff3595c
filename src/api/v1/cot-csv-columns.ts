import { REPORT_LAYOUTS } from '../../ingest/cftc-columns.ts';
import type { CotPosition } from '../../model/records.ts';
import type { CotHistoryRow } from '../../query/cot.ts';
import { presentCotHistoryRow, presentCotReport } from './cot-report.ts';
import { listCsvColumns } from './csv.ts';

/**
 * The CSV columns of endpoint 3's rows of one served report type (`legacy`, `tff_combined`, …),
 * for an answer without rows: the columns a report of that type has, from the parser's layout
 * of the type (its trader categories, and crop years for legacy and disaggregated), so that an
 * empty answer has the header row of one with rows. `history` is the keyed view (with the net
 * concentration, the crop years and supersedes_id). An unknown type gives none.
 */
export function listCotCsvColumns(reportType: string, view: 'latest' | 'history'): string[] {
  const type = reportType.endsWith('_combined') ? reportType.slice(0, -'_combined'.length) : reportType;
  const layout = REPORT_LAYOUTS.find((candidate) => candidate.reportType === type);
  if (!layout) return [];
  // A report of the type with every figure null: presented by the same functions as real rows,
  // so that the columns and their order cannot differ from theirs.
  const gross = {
    conc_gross_le4_long: null,
    conc_gross_le4_short: null,
    conc_gross_le8_long: null,
    conc_gross_le8_short: null,
  };
  const net = {
    conc_net_le4_long: null,
    conc_net_le4_short: null,
    conc_net_le8_long: null,
    conc_net_le8_short: null,
  };
  const cropYears = layout.extras?.cropYears ?? [];
  const template: CotHistoryRow = {
    id: '',
    series_key: '',
    report_type: type,
    market_code: '',
    period: '',
    market_name: '',
    contract_units: null,
    open_interest: null,
    change_open_interest: null,
    traders_total: null,
    ...gross,
    positions: layout.categories.map(({ category }) => emptyPosition(category)),
    observed_at: '',
    observed_at_method: null,
    revision_number: 1,
    supersedes_id: null,
    source_ref: '',
    analytics: null,
    ...net,
    crop_years:
      cropYears.length === 0
        ? null
        : cropYears.map((crop) => ({
            crop: crop.crop,
            open_interest: null,
            traders_total: null,
            ...gross,
            ...net,
            positions: crop.categories.map(({ category }) => emptyPosition(category)),
          })),
  };
  return listCsvColumns(view === 'history' ? presentCotHistoryRow(template) : presentCotReport(template));
}

function emptyPosition(category: string): CotPosition {
  return {
    category,
    long: null,
    short: null,
    spread: null,
    change_long: null,
    change_short: null,
    change_spread: null,
    pct_oi_long: null,
    pct_oi_short: null,
    pct_oi_spread: null,
    traders_long: null,
    traders_short: null,
    traders_spread: null,
  };
}
