import type { Payload } from '../../contract/envelope.ts';
import { invalidParameter, notFound } from '../../contract/errors.ts';
import { REVISIONS_MAX_VINTAGES } from '../../contract/schemas/revisions.ts';
import { type HistoryQuery, readMacroSeries, readSeriesInfo, type SeriesInfo } from '../../query/history.ts';
import { readRevisionPage, readVintages } from '../../query/revisions.ts';
import {
  revisionCsvRows,
  summarisePeriod,
  triangleCsvRows,
  triangleRow,
} from '../../query/revisions-compute.ts';
import type { SnapshotDb } from '../../query/snapshot-db.ts';
import type { PayloadFunction } from './context.ts';
import { describeHistoryPage, resolveHistoryQuery } from './observations.ts';
import { describeSeries } from './series-summary.ts';

/**
 * The revisions of one series (docs/api/revisions.md): shape list (one row per period: first
 * release, each revision with its change, latest, total revision) or triangle (one row per period,
 * one value per vintage). `csv`: the rows as the CSV lines of the shape.
 */
export async function presentRevisions(
  db: SnapshotDb,
  series: SeriesInfo,
  query: HistoryQuery,
  shape: 'list' | 'triangle',
  csv: boolean,
): Promise<Payload> {
  const terms = { licence: series.licence, attribution: series.attribution };
  if (shape === 'triangle') {
    // The vintages of the whole range first: the width is bounded before any row is read.
    const vintages = await readVintages(db, series.key, query, REVISIONS_MAX_VINTAGES);
    if (vintages.length > REVISIONS_MAX_VINTAGES)
      throw invalidParameter(
        'shape',
        `list, or triangle over at most ${REVISIONS_MAX_VINTAGES} vintages: this series has more than ` +
          `${REVISIONS_MAX_VINTAGES} in the range asked for; narrow it with from/to or an earlier as_of`,
      );
    const page = await readRevisionPage(db, series.key, query);
    const rows = page.rows.map((records) => triangleRow(records, vintages));
    const last = page.rows.at(-1)?.at(-1);
    return {
      data: csv ? triangleCsvRows(rows, vintages) : rows,
      meta: {
        shape: 'triangle',
        series: describeSeries(series),
        ...describeHistoryPage(query, last, page.more),
        ...terms,
        vintages,
        max_vintages: REVISIONS_MAX_VINTAGES,
      },
    };
  }
  const page = await readRevisionPage(db, series.key, query);
  const periods = page.rows.map(summarisePeriod);
  const last = page.rows.at(-1)?.at(-1);
  return {
    data: csv ? revisionCsvRows(periods) : periods,
    meta: {
      shape: 'list',
      series: describeSeries(series),
      ...describeHistoryPage(query, last, page.more),
      ...terms,
    },
  };
}

function requestedShape(value: unknown): 'list' | 'triangle' {
  return value === 'triangle' ? 'triangle' : 'list';
}

/** Endpoint 20 (by macro slug): /api/v1/macro/{slug}/revisions (a slug not on /macro is 404). */
export const getMacroRevisions: PayloadFunction = async ({ db, now }, params) => {
  const query = resolveHistoryQuery(params, now);
  const series = params.slug === null ? null : await readMacroSeries(db, params.slug);
  if (!series) throw notFound(`macro series ${params.slug}`);
  return presentRevisions(
    db,
    series,
    query,
    requestedShape(params.query.shape),
    params.query.format === 'csv',
  );
};

/** Endpoint 21 (by series key): /api/v1/observations/revisions?series= (an unknown key is 404). */
export const getObservationRevisions: PayloadFunction = async ({ db, now }, params) => {
  const key = String(params.query.series);
  const query = resolveHistoryQuery(params, now);
  const series = await readSeriesInfo(db, key);
  if (!series) throw notFound(`series ${key}`);
  return presentRevisions(
    db,
    series,
    query,
    requestedShape(params.query.shape),
    params.query.format === 'csv',
  );
};
