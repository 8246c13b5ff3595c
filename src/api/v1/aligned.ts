import type { Payload } from '../../contract/envelope.ts';
import { insufficientScope, invalidParameter } from '../../contract/errors.ts';
import { COT_HISTORY_SCOPE } from '../../contract/routes.ts';
import { ALIGNED_COT_FIELDS, ALIGNED_MAX_SERIES, ALIGNED_ROW_AS_OF } from '../../contract/schemas/aligned.ts';
import { resolvePeriodRange } from '../../model/period-range.ts';
import { type CotPosition, FREQUENCIES } from '../../model/records.ts';
import type { SeriesFrequency } from '../../model/transforms.ts';
import {
  readCotInForceAsOf,
  readCotRevisions,
  readCotSeriesInfo,
  readObservationRevisions,
} from '../../query/aligned.ts';
import {
  type AlignedFill,
  type AlignedFrequency,
  type AlignedMapping,
  type AlignedPoint,
  type AlignedRow,
  alignedCalendar,
  alignedMapping,
  alignSeries,
  nextTargetPeriod,
} from '../../query/aligned-compute.ts';
import {
  groupRevisions,
  latestPoints,
  type PanelRow,
  type PeriodHistory,
  panelRows,
} from '../../query/aligned-panel.ts';
import { readSeriesInfo } from '../../query/history.ts';
import type { SnapshotDb } from '../../query/snapshot-db.ts';
import { readValuesInForceAsOf } from '../../query/transforms.ts';
import { frequencyOfPeriod } from '../../query/transforms-compute.ts';
import type { PayloadFunction } from './context.ts';
import { encodeCursor } from './cursor.ts';
import { pageByPeriod } from './history-order.ts';
import { resolveHistoryQuery } from './observations.ts';

/**
 * /api/v1/observations/aligned (docs/api/aligned.md): several series on one weekly or monthly
 * calendar, every value as known at as_of, or with as_of=row each row as known at the end of its
 * own last day (the point-in-time panel, query/aligned-panel.ts).
 */

/** What a column is read as: the values in force at one as_of (null: the latest), or every revision. */
type Knowledge = { asOf: string | null } | 'revisions';

/** One column: what it is, and its values in force at as_of (as_of=row: its revisions too). */
interface Column {
  meta: {
    key: string;
    series_key: string;
    field: string | null;
    name: string | null;
    unit: string | null;
    source: string | null;
    source_frequency: SeriesFrequency;
    mapping: AlignedMapping;
    licence: string | null;
    attribution: string | null;
  };
  points: AlignedPoint[];
  /** Every revision by period (as_of=row only). */
  histories: PeriodHistory[] | null;
}

/** `<COT key>.net.<category>`: the net position of one trader category. */
const COT_NET = /^(.+)\.net\.([a-z_]+)$/;

function isSeriesFrequency(text: string | null): text is SeriesFrequency {
  return text !== null && (FREQUENCIES as readonly string[]).includes(text);
}

/**
 * Reads one requested key as a column, or null when the snapshot knows no such series. A COT
 * column gives every report date, so it needs cot:history besides observations:read (a 403
 * otherwise, as endpoint 3 refuses the same history).
 */
async function readColumn(
  db: SnapshotDb,
  key: string,
  knowledge: Knowledge,
  frequency: AlignedFrequency,
  cotHistory: boolean,
): Promise<Column | null> {
  const info = await readSeriesInfo(db, key);
  if (info) {
    let histories: PeriodHistory[] | null = null;
    let rows: AlignedPoint[];
    if (knowledge === 'revisions') {
      histories = groupRevisions(await readObservationRevisions(db, key), (fields) => fields.value);
      rows = latestPoints(histories);
    } else rows = await readValuesInForceAsOf(db, key, knowledge.asOf);
    const source = isSeriesFrequency(info.frequency)
      ? info.frequency
      : frequencyOfPeriod(rows[0]?.period ?? '0000-00');
    return {
      meta: {
        key,
        series_key: key,
        field: null,
        name: info.name,
        unit: info.unit,
        source: info.source,
        source_frequency: source,
        mapping: alignedMapping(source, frequency),
        licence: info.licence,
        attribution: info.attribution,
      },
      points: rows.map((row) => ({ period: row.period, value: row.value })),
      histories,
    };
  }
  const net = COT_NET.exec(key);
  const seriesKey = net ? net[1]! : key;
  const cot = await readCotSeriesInfo(db, seriesKey);
  if (!cot) return null;
  if (!cotHistory)
    throw insufficientScope(
      COT_HISTORY_SCOPE,
      `COT columns (${key}) need an API key with scope ${COT_HISTORY_SCOPE} besides observations:read`,
    );
  const revisions = knowledge === 'revisions' ? await readCotRevisions(db, seriesKey) : null;
  const reports =
    knowledge === 'revisions'
      ? (revisions ?? []).map((revision) => ({ period: revision.period, ...revision.fields }))
      : await readCotInForceAsOf(db, seriesKey, knowledge.asOf);
  const category = net ? net[2]! : null;
  if (category !== null) {
    const known = new Set(reports.flatMap((report) => (report.positions ?? []).map((p) => p.category)));
    if (known.size > 0 && !known.has(category))
      throw invalidParameter(
        'series',
        `for ${seriesKey} ${ALIGNED_COT_FIELDS}, a category of its reports: ${[...known].sort().join(', ')} (got ${category})`,
      );
  }
  const histories = revisions && groupRevisions(revisions, (report) => cotValue(report, category));
  return {
    meta: {
      key,
      series_key: seriesKey,
      field: category === null ? 'open_interest' : `net.${category}`,
      name:
        cot.market_name === null
          ? null
          : category === null
            ? cot.market_name
            : `${cot.market_name}: net ${category}`,
      unit: 'contracts',
      source: cot.source,
      source_frequency: 'weekly',
      mapping: alignedMapping('weekly', frequency),
      licence: cot.licence,
      attribution: cot.attribution,
    },
    points: histories
      ? latestPoints(histories)
      : reports.map((report) => ({ period: report.period, value: cotValue(report, category) })),
    histories,
  };
}

/** A COT report's value in a column: its open interest, or a category's long - short (null when either is missing). */
function cotValue(
  report: { open_interest: number | null; positions: CotPosition[] | null },
  category: string | null,
): number | null {
  if (category === null) return report.open_interest;
  const position = report.positions?.find((p) => p.category === category);
  return position && position.long !== null && position.short !== null
    ? position.long - position.short
    : null;
}

/** The rows as CSV lines: period (as_of=row: and the row's as_of), then one column per requested key. */
function csvRows(keys: readonly string[], rows: ReadonlyArray<AlignedRow | PanelRow>) {
  return rows.map((row) => {
    const line: Record<string, unknown> = { period: row.period };
    if ('as_of' in row) line.as_of = row.as_of;
    keys.forEach((key, i) => {
      line[key] = row.values[i];
    });
    return line;
  });
}

/** Endpoint 23: the aligned rows of up to ALIGNED_MAX_SERIES series (an unknown key is a 400). */
export const getAlignedObservations: PayloadFunction = async (
  { db, now, cotHistory = false },
  params,
): Promise<Payload> => {
  const keys = String(params.query.series).split(',');
  const frequency = params.query.frequency as AlignedFrequency;
  const fill = (params.query.fill ?? 'ffill') as AlignedFill;
  // as_of=row: the point-in-time panel; the rest of the query reads as without as_of.
  const panel = params.query.as_of === ALIGNED_ROW_AS_OF;
  const query = resolveHistoryQuery(
    panel ? { ...params, query: { ...params.query, as_of: undefined } } : params,
    now,
  );
  const columns = await Promise.all(
    keys.map((key) => readColumn(db, key, panel ? 'revisions' : { asOf: query.asOf }, frequency, cotHistory)),
  );
  const unknown = keys.filter((_, i) => columns[i] === null);
  if (unknown.length)
    throw invalidParameter(
      'series',
      `series keys the snapshot holds (unknown: ${unknown.join(', ')}); observation keys as on ` +
        `/api/v1/observations, COT keys as cftc.<market code>.<report type>, at most ${ALIGNED_MAX_SERIES}`,
    );
  const known = columns as Column[];
  const points = known.map((column) => column.points);
  const range = resolvePeriodRange(query.from, query.to);
  let page: Array<AlignedRow | PanelRow>;
  let more: boolean;
  if (panel) {
    // The calendar without as_of, paged; then only the page's rows are computed.
    const calendar = alignedCalendar(points, frequency, range);
    const periods: Array<{ period: string }> = [];
    for (let t = calendar?.first; calendar && t && t <= calendar.last; t = nextTargetPeriod(t, frequency))
      periods.push({ period: t });
    const selected = pageByPeriod(periods, query.order ?? 'asc', query.after, query.limit);
    const histories = known.map((column) => column.histories ?? []);
    page = panelRows(
      histories,
      selected.rows.map((row) => row.period),
      frequency,
      fill,
      now,
    );
    more = selected.more;
  } else {
    const rows = alignSeries(points, frequency, fill, range);
    ({ rows: page, more } = pageByPeriod(rows, query.order ?? 'asc', query.after, query.limit));
  }
  const last = page.at(-1);
  return {
    data: params.query.format === 'csv' ? csvRows(keys, page) : page,
    meta: {
      series: known.map((column) => column.meta),
      frequency,
      fill,
      as_of: panel ? ALIGNED_ROW_AS_OF : query.asOf,
      filters: { from: query.from, to: query.to },
      sort_order: query.order ?? 'asc',
      next_cursor: more && last ? encodeCursor({ period: last.period, revision_number: 1 }) : null,
      max_series: ALIGNED_MAX_SERIES,
    },
  };
};
