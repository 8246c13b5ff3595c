import { readSourceTerms } from '../../query/catalog.ts';
import { readCotHistory } from '../../query/history.ts';
import type { PayloadFunction } from './context.ts';
import { presentMarketDetail, resolveMarket, resolveReportType } from './cot.ts';
import { cotSeriesKey, presentCotHistoryRow } from './cot-report.ts';
import { describeHistoryPage, resolveHistoryQuery } from './observations.ts';

/**
 * Endpoint 3 for a key holding cot:history: every weekly report of the market's report type,
 * one per report date (the revision in force at as_of, else the latest), oldest first, paged.
 */
export const getCotHistory: PayloadFunction = async ({ db, now }, params) => {
  const market = await resolveMarket(db, params.slug);
  const reportType = resolveReportType(market, params.query.report_type);
  const query = resolveHistoryQuery(params, now);
  const page = await readCotHistory(db, cotSeriesKey(market.code, reportType), query);
  const terms = await readSourceTerms(db, 'cftc');
  return {
    data: page.rows.map(presentCotHistoryRow),
    meta: {
      // Tags the view (the OpenAPI discriminator of this meta); the public one is `latest`.
      view: 'history',
      market: presentMarketDetail(market),
      report_type: reportType,
      // The window describes this page; further pages follow through next_cursor.
      window: {
        reports: page.rows.length,
        limit: query.limit,
        from: page.rows[0]?.period ?? null,
        to: page.rows.at(-1)?.period ?? null,
        full_history: true,
      },
      ...describeHistoryPage(query, page.rows.at(-1), page.more),
      attribution: terms?.attribution ?? null,
      licence: terms?.licence ?? null,
    },
  };
};
