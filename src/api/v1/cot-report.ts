import type { CotCropYear, CotNetConcentration } from '../../model/records.ts';
import type { CotAnalyticsRow, CotHistoryRow, CotReportRow } from '../../query/cot.ts';

/** One trader category of a report as the API shows it, with net positions derived. */
export interface CategoryView {
  long: number | null;
  short: number | null;
  spread: number | null;
  net: number | null;
  change_long: number | null;
  change_short: number | null;
  change_spread: number | null;
  change_net: number | null;
  pct_oi_long: number | null;
  pct_oi_short: number | null;
  pct_oi_spread: number | null;
  traders_long: number | null;
  traders_short: number | null;
  traders_spread: number | null;
  /** Analytics (docs/api/cot-analytics.md), computed in src/query/cot.ts over reports known at as_of. */
  pct_oi_net: number | null;
  cot_index_26: number | null;
  cot_index_52: number | null;
  cot_index_156: number | null;
  z_score_52: number | null;
}

const difference = (a: number | null, b: number | null) => (a === null || b === null ? null : a - b);

/** Shapes a stored report for the API: categories keyed by name, net = long - short. */
export function presentCotReport(row: CotReportRow) {
  const categories: Record<string, CategoryView> = {};
  const analytics = new Map<string, CotAnalyticsRow>((row.analytics ?? []).map((a) => [a.category, a]));
  for (const p of row.positions) {
    const a = analytics.get(p.category);
    categories[p.category] = {
      long: p.long,
      short: p.short,
      spread: p.spread,
      net: difference(p.long, p.short),
      change_long: p.change_long,
      change_short: p.change_short,
      change_spread: p.change_spread,
      change_net: difference(p.change_long, p.change_short),
      pct_oi_long: p.pct_oi_long,
      pct_oi_short: p.pct_oi_short,
      pct_oi_spread: p.pct_oi_spread,
      traders_long: p.traders_long,
      traders_short: p.traders_short,
      traders_spread: p.traders_spread,
      pct_oi_net: a?.pct_oi_net ?? null,
      cot_index_26: a?.cot_index_26 ?? null,
      cot_index_52: a?.cot_index_52 ?? null,
      cot_index_156: a?.cot_index_156 ?? null,
      z_score_52: a?.z_score_52 ?? null,
    };
  }
  return {
    report_date: row.period,
    released_at: row.observed_at,
    released_at_method: row.observed_at_method ?? 'collected',
    report_type: servedReportType(row.series_key),
    market_name: row.market_name,
    contract_units: row.contract_units,
    open_interest: row.open_interest,
    change_open_interest: row.change_open_interest,
    traders_total: row.traders_total,
    categories,
    concentration: {
      gross_top4_long: row.conc_gross_le4_long,
      gross_top4_short: row.conc_gross_le4_short,
      gross_top8_long: row.conc_gross_le8_long,
      gross_top8_short: row.conc_gross_le8_short,
    },
    revision_number: row.revision_number,
  };
}

/** The net concentration ratios as the API names them (`net_top4_long`, ...). */
function presentNetConcentration(row: CotNetConcentration) {
  return {
    net_top4_long: row.conc_net_le4_long,
    net_top4_short: row.conc_net_le4_short,
    net_top8_long: row.conc_net_le8_long,
    net_top8_short: row.conc_net_le8_short,
  };
}

/** One crop year of a report: its totals, categories (no changes are published) and ratios. */
function presentCropYear(crop: CotCropYear) {
  const categories: Record<string, object> = {};
  for (const p of crop.positions) {
    categories[p.category] = {
      long: p.long,
      short: p.short,
      spread: p.spread,
      net: difference(p.long, p.short),
      pct_oi_long: p.pct_oi_long,
      pct_oi_short: p.pct_oi_short,
      pct_oi_spread: p.pct_oi_spread,
      traders_long: p.traders_long,
      traders_short: p.traders_short,
      traders_spread: p.traders_spread,
    };
  }
  return {
    open_interest: crop.open_interest,
    traders_total: crop.traders_total,
    categories,
    concentration: {
      gross_top4_long: crop.conc_gross_le4_long,
      gross_top4_short: crop.conc_gross_le4_short,
      gross_top8_long: crop.conc_gross_le8_long,
      gross_top8_short: crop.conc_gross_le8_short,
      ...presentNetConcentration(crop),
    },
  };
}

/**
 * The fields only the keyed history adds to a report (docs/data-model.md, "COT report
 * columns"): the net concentration ratios, and the Old and Other crop years of legacy and
 * disaggregated reports (null for TFF and CIT, and for a report stored without them).
 */
export function presentCotHistoryColumns(row: CotHistoryRow) {
  const crops = new Map((row.crop_years ?? []).map((crop) => [crop.crop, crop]));
  const old = crops.get('old');
  const other = crops.get('other');
  return {
    concentration_net: presentNetConcentration(row),
    crop_years:
      old === undefined || other === undefined
        ? null
        : { old: presentCropYear(old), other: presentCropYear(other) },
  };
}

/** A report as endpoint 3 gives it to a key with cot:history: the report, its stored columns, its revision link. */
export function presentCotHistoryRow(row: CotHistoryRow) {
  return { ...presentCotReport(row), ...presentCotHistoryColumns(row), supersedes_id: row.supersedes_id };
}

/** The series key of a market's report of one served type (`legacy`, `tff_combined`, `cit`, …). */
export function cotSeriesKey(code: string, reportType: string): string {
  if (reportType === 'cit') return `cftc.${code}.cit.combined`;
  const combined = reportType.endsWith('_combined');
  return `cftc.${code}.${combined ? reportType.slice(0, -'_combined'.length) : reportType}${combined ? '.combined' : ''}`;
}

/** The served report type of a COT series key (the inverse of cotSeriesKey). */
export function servedReportType(seriesKey: string): string {
  const [, , type = '', scope] = seriesKey.split('.');
  if (type === 'cit') return 'cit';
  return scope === 'combined' ? `${type}_combined` : type;
}
