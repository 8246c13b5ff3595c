import { createHash } from 'node:crypto';
import type { ObservationRow } from './history-rows.ts';

/**
 * A series' revisions held as bytes (issue 33): each revision's JSON as the API presents it is
 * serialised once when the series is read, and a page is the concatenation of its rows' bytes
 * (api/v1/history-bytes.ts) instead of objects serialised per request. Beside the bytes only what
 * choosing a page needs is kept per row (period, revision, knowledge time), and what the values in
 * force need (value, observed_at); the row objects are not kept.
 */

/** A stored revision as endpoints 5 and 8 present it (provenance defaults filled in). */
export function presentObservation(row: ObservationRow) {
  return {
    id: row.id,
    series_key: row.series_key,
    period: row.period,
    value: row.value,
    source_ref: row.source_ref,
    observed_at: row.observed_at,
    observed_at_method: row.observed_at_method ?? 'collected',
    footnotes: row.footnotes ?? [],
    collector_version: row.collector_version,
    verification_status: row.verification_status,
    confidence: row.confidence,
    data_class: row.data_class,
    revision_number: row.revision_number,
    supersedes_id: row.supersedes_id,
    in_force: row.in_force,
  };
}

/** The fields of a presented revision, in their order: in_force last, the one a page decides. */
export const OBSERVATION_FIELDS = Object.keys(
  presentObservation({ in_force: false } as ObservationRow),
) as ReadonlyArray<keyof ReturnType<typeof presentObservation>>;

/** A series' revisions in (period, revision_number) order. */
export interface RevisionBlock {
  count: number;
  periods: string[];
  revisions: Int32Array;
  /** observed_at of each row in microseconds since the epoch (what DuckDB compares). */
  observedUs: Float64Array;
  values: Float64Array;
  observedAt: string[];
  /**
   * Row i's presented JSON up to and including `"in_force":` (in_force is the last field, and
   * the only one a page decides): bytes `json[starts[i], starts[i + 1])`.
   */
  json: Buffer;
  starts: Uint32Array;
  /** Per row, 1: observed_at_method was null, 2: footnotes was null (presented as 'collected' and []). */
  nulls: Uint8Array;
  /** SHA-256 (base64url) of the revisions as DuckDB wrote them: the same data gives the same hash. */
  contentHash: string;
  /** Forms made from the rows on first use (the CSV lines), by name; charged when added. */
  derived: Map<string, unknown>;
  bytes: number;
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
/** What `"in_force":false}` ends with after `"in_force":`. */
const FALSE_END = 'false}';

/** Bytes a block is charged: its buffers, 41 bytes per row of typed arrays and references, shared texts once. */
const chargeFor = (jsonBytes: number, rows: number, sharedChars: number) =>
  jsonBytes + rows * 41 + sharedChars * 2 + 256;

/** An empty block (a key without revisions). */
export function emptyBlock(): RevisionBlock {
  return {
    count: 0,
    periods: [],
    revisions: new Int32Array(0),
    observedUs: new Float64Array(0),
    values: new Float64Array(0),
    observedAt: [],
    json: Buffer.alloc(0),
    starts: new Uint32Array(1),
    nulls: new Uint8Array(0),
    contentHash: createHash('sha256').digest('base64url'),
    derived: new Map(),
    bytes: 256,
  };
}

/**
 * Reads the JSON array of revisions (with `_us`, observed_at in microseconds) DuckDB wrote for a
 * series, or null for one only DuckDB should answer: a value without a JSON form (NaN) or not a
 * number, a period outside printable ASCII (JavaScript and DuckDB order such text differently).
 */
export function parseBlock(json: string): RevisionBlock | null {
  let parsed: Array<Omit<ObservationRow, 'in_force'> & { _us: number }>;
  try {
    parsed = JSON.parse(json);
  } catch {
    return null;
  }
  const count = parsed.length;
  const block = emptyBlock();
  block.count = count;
  block.periods = new Array(count);
  block.revisions = new Int32Array(count);
  block.observedUs = new Float64Array(count);
  block.values = new Float64Array(count);
  block.observedAt = new Array(count);
  block.nulls = new Uint8Array(count);
  block.starts = new Uint32Array(count + 1);
  // Texts most rows of a series share are kept once (JSON.parse gives each row its own copy).
  const shared = new Map<string, string>();
  let sharedChars = 0;
  const once = (text: string): string => {
    const held = shared.get(text);
    if (held !== undefined) return held;
    shared.set(text, text);
    sharedChars += text.length;
    return text;
  };
  const texts: string[] = new Array(count);
  let offset = 0;
  for (let i = 0; i < count; i++) {
    const { _us, ...row } = parsed[i]!;
    if (typeof row.period !== 'string' || !PRINTABLE_ASCII.test(row.period) || typeof _us !== 'number')
      return null;
    if (typeof row.value !== 'number' || typeof row.revision_number !== 'number') return null;
    block.periods[i] = once(row.period);
    block.revisions[i] = row.revision_number;
    block.observedUs[i] = _us;
    block.values[i] = row.value;
    block.observedAt[i] = once(row.observed_at);
    block.nulls[i] = (row.observed_at_method === null ? 1 : 0) | (row.footnotes === null ? 2 : 0);
    const text = JSON.stringify(presentObservation({ ...row, in_force: false }));
    texts[i] = text.slice(0, -FALSE_END.length);
    block.starts[i] = offset;
    offset += Buffer.byteLength(texts[i]!);
  }
  block.starts[count] = offset;
  block.json = Buffer.from(texts.join(''));
  block.contentHash = createHash('sha256').update(json).digest('base64url');
  block.bytes = chargeFor(block.json.length, count, sharedChars);
  return block;
}

/** Row i of a block as DuckDB's page would give it (history.ts ObservationRow). */
export function rowOf(block: RevisionBlock, i: number, inForce: boolean): ObservationRow {
  const row = JSON.parse(
    `${block.json.toString('utf8', block.starts[i], block.starts[i + 1])}${FALSE_END}`,
  ) as ObservationRow;
  if (block.nulls[i]! & 1) row.observed_at_method = null;
  if (block.nulls[i]! & 2) row.footnotes = null;
  row.in_force = inForce;
  return row;
}

/** Row i as the API presents it (in_force false): what a derived form (CSV) is made from. */
export function presentedRowOf(block: RevisionBlock, i: number): ReturnType<typeof presentObservation> {
  return JSON.parse(`${block.json.toString('utf8', block.starts[i], block.starts[i + 1])}${FALSE_END}`);
}
