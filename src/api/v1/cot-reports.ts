/**
 * Endpoint 25: every market's COT report of one report date and report type, the way CFTC Socrata
 * users ask for it. The reports are those of endpoint 3, with the same rights: a date older than
 * the public window needs cot:history (docs/api/cot-reports.md).
 */
import { insufficientScope, unauthorized } from '../../contract/errors.ts';
import { COT_HISTORY_SCOPE } from '../../contract/routes.ts';
import { readSourceTerms } from '../../query/catalog.ts';
import { PUBLIC_COT_REPORTS } from '../../query/cot.ts';
import { readLatestReportDate, readReportsOfDate } from '../../query/cot-reports-of-date.ts';
import type { PayloadFunction } from './context.ts';
import { cotSeriesKey, presentCotReport } from './cot-report.ts';

/** The report type of a request without one: the legacy report, the one every market has longest. */
const DEFAULT_REPORT_TYPE = 'legacy';

/** Endpoint 25: one row per market reported on the date, by slug. */
export const getCotReportsOfDate: PayloadFunction = async ({ db, cotHistory, authenticated }, params) => {
  const reportType =
    typeof params.query.report_type === 'string' ? params.query.report_type : DEFAULT_REPORT_TYPE;
  // The part of a series key after the market code: cftc.<code>.<suffix>.
  const suffix = cotSeriesKey('', reportType).slice('cftc..'.length);
  const requested = typeof params.query.report_date === 'string' ? params.query.report_date : null;
  const date = requested ?? (await readLatestReportDate(db, suffix));
  const rows = date === null ? [] : await readReportsOfDate(db, suffix, date);
  if (cotHistory !== true && rows.some((row) => !row.in_window)) {
    const message =
      `the ${reportType} reports of ${date} are older than the public window (the ${PUBLIC_COT_REPORTS} most ` +
      `recent reports of each market): they need an API key with scope ${COT_HISTORY_SCOPE}`;
    throw authenticated === true
      ? insufficientScope(COT_HISTORY_SCOPE, message)
      : unauthorized(`${message}; send Authorization: Bearer <key>`);
  }
  const terms = await readSourceTerms(db, 'cftc');
  return {
    data: rows.map((row) => ({
      slug: row.slug,
      code: row.code,
      exchange: row.exchange,
      mic: row.mic,
      sector: row.sector,
      report: presentCotReport(row),
    })),
    meta: {
      report_date: date,
      requested_date: requested,
      report_type: reportType,
      attribution: terms?.attribution ?? null,
      licence: terms?.licence ?? null,
    },
  };
};
