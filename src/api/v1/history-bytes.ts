import { type Meta, successMeta } from '../../contract/envelope.ts';
import { notFound } from '../../contract/errors.ts';
import type { RequestParams } from '../../contract/parse-request.ts';
import type { RouteDefinition } from '../../contract/routes.ts';
import { VINTAGE_PARAM_NAMES } from '../../contract/vintage-params.ts';
import { readMacroSeries, readSeriesInfo, type SeriesInfo } from '../../query/history.ts';
import { presentedRowOf, type RevisionBlock } from '../../query/revision-block.ts';
import { type CachedPage, deriveFromBlock, readCachedObservationPage } from '../../query/revision-cache.ts';
import type { SnapshotDb } from '../../query/snapshot-db.ts';
import { renderCsv } from './csv.ts';
import { checkFields } from './field-selection.ts';
import { fieldsCsvBody, fieldsJsonBody, selectedFieldIndices } from './history-field-bytes.ts';
import { requestedOrder } from './history-order.ts';
import { describeSeriesHistory, resolveHistoryQuery } from './observations.ts';
import { generatedAtOf, renderDataCsv } from './render.ts';
import { requestedTransform } from './transforms.ts';

/**
 * A page of endpoints 5 and 8 as bytes (issue 33): its rows were serialised once, when the series
 * was read into the revision cache (query/revision-block.ts), so the body is their bytes put
 * together with the few that differ per request (`in_force`, the envelope's meta); no row is
 * serialised per request. The CSV lines are made once per block on the first CSV request. The
 * bodies are byte for byte those of renderPayload + JSON.stringify / renderDataCsv
 * (test/integration/api/representation-bytes.test.ts); anything the revision cache cannot answer
 * (a transform, a series it leaves to DuckDB) is null here and goes that way.
 */

/** A page chosen, before its body is put together. */
export interface HistoryPageBytes {
  page: CachedPage;
  meta: Meta;
  /** What the body depends on besides the route and the request: the series' data and description. */
  content: string;
  /** The fields the rows keep (`fields=`, checked), or null for every field. */
  fields: ReadonlySet<string> | null;
}

/** Reads the page of an endpoint 5 or 8 request from the revision cache, or null when it cannot. Throws ApiErrors. */
export async function readHistoryPageBytes(
  db: SnapshotDb,
  route: RouteDefinition,
  params: RequestParams,
  now: Date,
): Promise<HistoryPageBytes | null> {
  if (route.id !== 'observations' && route.id !== 'macro-series') return null;
  // ALFRED's view and newest-first pages are the payload's (api/v1/vintages.ts, history-order.ts).
  if (VINTAGE_PARAM_NAMES.some((name) => params.query[name] !== undefined)) return null;
  if (requestedOrder(params) === 'desc') return null;
  // In the order of getObservations and getMacroHistory, so that a refusal is the same.
  const query = resolveHistoryQuery(params, now);
  let series: SeriesInfo | null;
  let page: CachedPage | null;
  if (route.id === 'observations') {
    if (requestedTransform(params)) return null;
    const key = String(params.query.series);
    [series, page] = await Promise.all([readSeriesInfo(db, key), readCachedObservationPage(db, key, query)]);
    if (!series) throw notFound(`series ${key}`);
  } else {
    series = params.slug === null ? null : await readMacroSeries(db, params.slug);
    if (!series) throw notFound(`macro series ${params.slug}`);
    if (requestedTransform(params)) return null;
    page = await readCachedObservationPage(db, series.key, query);
  }
  if (!page) return null;
  const lastIndex = page.indices.at(-1);
  const last =
    lastIndex === undefined
      ? undefined
      : { period: page.block.periods[lastIndex]!, revision_number: page.block.revisions[lastIndex]! };
  const own = describeSeriesHistory(series, query, last, page.more);
  const meta = successMeta(own, page.indices.length, db.id, generatedAtOf(now));
  return {
    page,
    meta,
    content: `${page.block.contentHash} ${JSON.stringify(series)}`,
    fields: checkFields(route, params, meta),
  };
}

const JSON_START = Buffer.from('{"data":[');
const JSON_MIDDLE = Buffer.from('],"meta":');
const JSON_TRUE = Buffer.from('true}');
const JSON_FALSE = Buffer.from('false}');

/** The JSON envelope of a page: `{"data":[rows],"meta":{…}}`, as JSON.stringify writes it. */
export function historyJsonBody(db: SnapshotDb, chosen: HistoryPageBytes): Buffer {
  const { block, indices, inForce } = chosen.page;
  const meta = JSON.stringify(chosen.meta);
  if (chosen.fields) return fieldsJsonBody(db, chosen.page, selectedFieldIndices(chosen.fields), meta);
  return joinRows(
    block.json,
    block.starts,
    indices,
    inForce,
    JSON_START,
    JSON_TRUE,
    JSON_FALSE,
    ',',
    `${JSON_MIDDLE}${meta}}`,
  );
}

/** A block's CSV data lines up to their last field (in_force), and the header line they share. */
interface CsvLines {
  header: Buffer;
  bytes: Buffer;
  starts: Uint32Array;
}

const CSV_TRUE = Buffer.from('true\r\n');
const CSV_FALSE = Buffer.from('false\r\n');

/** The CSV of a page (renderDataCsv of its rows): the header row, then one line per row. */
export function historyCsvBody(db: SnapshotDb, route: RouteDefinition, chosen: HistoryPageBytes): Buffer {
  const { indices, inForce } = chosen.page;
  if (indices.length === 0)
    return Buffer.from(renderDataCsv(route, { data: [], meta: chosen.meta }, chosen.fields));
  if (chosen.fields) return fieldsCsvBody(db, chosen.page, selectedFieldIndices(chosen.fields));
  const lines = deriveFromBlock(db, chosen.page, 'csv', makeCsvLines);
  return joinRows(lines.bytes, lines.starts, indices, inForce, lines.header, CSV_TRUE, CSV_FALSE, '', '');
}

/**
 * Each row's CSV line as renderCsv writes it for the presented row (in_force false), without the
 * `false` and line end: every row has the same fields, so one header serves them all.
 */
function makeCsvLines(block: RevisionBlock): { value: CsvLines; bytes: number } {
  const texts: string[] = new Array(block.count);
  const starts = new Uint32Array(block.count + 1);
  let header = '';
  let offset = 0;
  for (let i = 0; i < block.count; i++) {
    const text = renderCsv([presentedRowOf(block, i)]);
    const end = text.indexOf('\r\n') + 2;
    header = text.slice(0, end);
    texts[i] = text.slice(end, -CSV_FALSE.length);
    starts[i] = offset;
    offset += Buffer.byteLength(texts[i]!);
  }
  starts[block.count] = offset;
  const value = { header: Buffer.from(header), bytes: Buffer.from(texts.join('')), starts };
  return { value, bytes: value.header.length + value.bytes.length + starts.byteLength };
}

/** One buffer: `start`, each chosen row's bytes with its in_force end, separated, then `end`. */
function joinRows(
  bytes: Buffer,
  starts: Uint32Array,
  indices: readonly number[],
  inForce: readonly boolean[],
  start: Buffer,
  whenTrue: Buffer,
  whenFalse: Buffer,
  separator: ',' | '',
  end: string,
): Buffer {
  const gap = separator.length;
  const tail = Buffer.from(end);
  let size = start.length + tail.length + Math.max(0, indices.length - 1) * gap;
  for (let n = 0; n < indices.length; n++) {
    const i = indices[n]!;
    size += starts[i + 1]! - starts[i]! + (inForce[n] ? whenTrue.length : whenFalse.length);
  }
  // TypedArray set of a subarray, and a byte loop for the few bytes of in_force: Buffer#copy
  // costs a binding call per piece, which at two pieces per row was most of a page's time.
  const out = Buffer.allocUnsafe(size);
  out.set(start, 0);
  let at = start.length;
  for (let n = 0; n < indices.length; n++) {
    const i = indices[n]!;
    if (n > 0 && gap) out[at++] = 0x2c;
    const from = starts[i]!;
    const to = starts[i + 1]!;
    out.set(bytes.subarray(from, to), at);
    at += to - from;
    const last = inForce[n] ? whenTrue : whenFalse;
    for (let k = 0; k < last.length; k++) out[at++] = last[k]!;
  }
  out.set(tail, at);
  return out;
}
