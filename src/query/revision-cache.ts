import { resolvePeriodRange } from '../contract/period-range.ts';
// history.ts imports this module too: only functions are taken from it, called after both loaded.
import {
  bindPeriodRange,
  type HistoryPage,
  type HistoryQuery,
  OBSERVATION_COLUMNS,
  type ObservationRow,
} from './history.ts';
import type { SnapshotDb } from './snapshot-db.ts';
import { rfc3339 } from './sql.ts';
import type { InForceRow } from './transforms.ts';

/**
 * Point-in-time pages of one series computed in JavaScript from its revisions held in memory.
 *
 * A keyed `as_of` page asks DuckDB to scan a Parquet partition, run a window and build JSON: about
 * 5-16 ms, while choosing the revisions in force from rows already in memory takes microseconds
 * (issue 27). So the first request for a series reads every revision of it once (one query, the
 * same to_json the DuckDB path uses, so every value has the same JSON form), and later pages of
 * any as_of, period range or cursor are computed here. The blocks live per snapshot (a snapshot
 * never changes), in one LRU bounded by bytes; the snapshot manager drops them on a switch.
 *
 * Anything this module cannot answer exactly like the SQL of history.ts falls back to it (returns
 * null): an as_of not in the normalised form, text outside printable ASCII (JavaScript and DuckDB
 * order it differently), a value without a JSON form (NaN), a cache of size 0.
 */

/** A series' revisions in (period, revision_number) order, without in_force, and when each was observed. */
interface RevisionBlock {
  rows: Array<Omit<ObservationRow, 'in_force'>>;
  /** observed_at of each row in microseconds since the epoch (what DuckDB compares). */
  observedUs: Float64Array;
  bytes: number;
}

/** What the cache holds for a key: a block, or null when the series must go to DuckDB. */
type Slot = { block: RevisionBlock | null; bytes: number };

/** Default budget of the blocks of one snapshot (MMDS_REVISION_CACHE_MB). */
export const DEFAULT_REVISION_CACHE_MB = 64;

/**
 * Bytes a block is charged: its JSON text once (the heap a block takes, shared texts kept once,
 * is about 0.8 of it: 355 KB for a 1,000-row synthetic series of 440 KB of JSON), plus 8 per row
 * for observedUs and a fixed overhead per entry. Section h of the benchmark reports both figures.
 */
const chargeFor = (jsonChars: number, rows: number) => jsonChars + rows * 8 + 256;

/** The columns of a cached row: ObservationRow without in_force (computed per page), in its order. */
const rowColumns = () => OBSERVATION_COLUMNS.filter((column) => column !== 'in_force');

/** Every revision of one series as one JSON array (observed_at also as epoch microseconds). */
const blockSql = (relation: string) => `SELECT to_json(list({${rowColumns()
  .map((c) => (c === 'observed_at' ? `'observed_at': ${rfc3339('observed_at')}` : `'${c}': ${c}`))
  .join(', ')}, '_us': epoch_us(observed_at)}
         ORDER BY period, revision_number))::VARCHAR AS rows
  FROM ${relation} AS observations
 WHERE series_key = $series`;

const blockStatements = new Map<string, string>();
function blockStatement(relation: string): string {
  let sql = blockStatements.get(relation);
  if (sql === undefined) {
    sql = blockSql(relation);
    blockStatements.set(relation, sql);
  }
  return sql;
}

/** The cache of one snapshot: slots by series key, least recently used first. */
class RevisionCache {
  readonly #slots = new Map<string, Slot>();
  readonly #loading = new Map<string, Promise<RevisionBlock | null>>();
  #bytes = 0;
  readonly db: SnapshotDb;
  readonly maxBytes: number;
  constructor(db: SnapshotDb, maxBytes: number) {
    this.db = db;
    this.maxBytes = maxBytes;
  }

  get bytes(): number {
    return this.#bytes;
  }

  get entries(): number {
    return this.#slots.size;
  }

  /** The block of a series (loaded on first use), or null when it must be read by DuckDB. */
  async block(seriesKey: string): Promise<RevisionBlock | null> {
    const slot = this.#slots.get(seriesKey);
    if (slot) {
      // Most recently used last.
      this.#slots.delete(seriesKey);
      this.#slots.set(seriesKey, slot);
      return slot.block;
    }
    let loading = this.#loading.get(seriesKey);
    if (!loading) {
      loading = this.#load(seriesKey).finally(() => this.#loading.delete(seriesKey));
      this.#loading.set(seriesKey, loading);
    }
    return loading;
  }

  clear(): void {
    this.#slots.clear();
    this.#bytes = 0;
  }

  async #load(seriesKey: string): Promise<RevisionBlock | null> {
    const [found] = await this.db.query<{ rows: string | null }>(
      blockStatement(this.db.factRelation('observations', seriesKey)),
      { series: seriesKey },
    );
    const parsed = parseBlock(found?.rows ?? null);
    // A block above a quarter of the budget answers this request only (it would push out most
    // others); the series is remembered as one for DuckDB, whose pages read only the row groups
    // they need, instead of being read whole again by every request.
    const slot: Slot = parsed.bytes <= this.maxBytes / 4 ? { ...parsed } : { block: null, bytes: 0 };
    // The key and the map entry too: unknown keys hold empty blocks.
    slot.bytes += 2 * seriesKey.length + 64;
    this.#slots.set(seriesKey, slot);
    this.#bytes += slot.bytes;
    for (const [key, old] of this.#slots) {
      if (this.#bytes <= this.maxBytes) break;
      this.#slots.delete(key);
      this.#bytes -= old.bytes;
    }
    return parsed.block;
  }
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** Reads the JSON of blockSql; a block DuckDB's JSON cannot carry (NaN) or non-ASCII periods goes to DuckDB. */
function parseBlock(json: string | null): Slot {
  if (json === null) return { block: { rows: [], observedUs: new Float64Array(0), bytes: 256 }, bytes: 256 };
  let parsed: Array<Omit<ObservationRow, 'in_force'> & { _us: number }>;
  try {
    parsed = JSON.parse(json);
  } catch {
    return { block: null, bytes: 256 };
  }
  const observedUs = new Float64Array(parsed.length);
  const rows: RevisionBlock['rows'] = new Array(parsed.length);
  // Texts most rows of a series share are kept once (JSON.parse gives each row its own copy).
  const shared = new Map<string, string>();
  const once = <T>(text: T): T => {
    if (typeof text !== 'string') return text;
    const held = shared.get(text);
    if (held !== undefined) return held as T;
    shared.set(text, text);
    return text;
  };
  for (let i = 0; i < parsed.length; i++) {
    const { _us, ...row } = parsed[i]!;
    if (typeof row.period !== 'string' || !PRINTABLE_ASCII.test(row.period) || typeof _us !== 'number')
      return { block: null, bytes: 256 };
    observedUs[i] = _us;
    row.series_key = once(row.series_key);
    row.period = once(row.period);
    row.observed_at = once(row.observed_at);
    row.observed_at_method = once(row.observed_at_method);
    row.collector_version = once(row.collector_version);
    row.verification_status = once(row.verification_status);
    row.data_class = once(row.data_class);
    rows[i] = row;
  }
  const bytes = chargeFor(json.length, parsed.length);
  return { block: { rows, observedUs, bytes }, bytes };
}

const caches = new WeakMap<SnapshotDb, RevisionCache>();
/** Snapshots out of service: their last requests read with DuckDB, no new blocks are loaded. */
const dropped = new WeakSet<SnapshotDb>();

function cacheOf(db: SnapshotDb): RevisionCache | null {
  if (db.revisionCacheBytes <= 0 || dropped.has(db)) return null;
  let cache = caches.get(db);
  if (!cache) {
    cache = new RevisionCache(db, db.revisionCacheBytes);
    caches.set(db, cache);
  }
  return cache;
}

/** Drops the blocks of a snapshot (taken out of service: its memory is the next one's). */
export function dropRevisionCache(db: SnapshotDb): void {
  caches.get(db)?.clear();
  caches.delete(db);
  dropped.add(db);
}

/** Bytes charged and blocks held for a snapshot (the benchmark reports them). */
export function revisionCacheUsage(db: SnapshotDb): { bytes: number; entries: number; max_bytes: number } {
  const cache = caches.get(db);
  return { bytes: cache?.bytes ?? 0, entries: cache?.entries ?? 0, max_bytes: db.revisionCacheBytes };
}

/** The normalised as_of form (contract/instant.ts): the only one whose instant is read here. */
const NORMALISED_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/** as_of in microseconds (no as_of: every revision), or null for a text only DuckDB should read. */
function asOfMicros(asOf: string | null): number | null {
  if (asOf === null) return Number.POSITIVE_INFINITY;
  if (!NORMALISED_INSTANT.test(asOf)) return null;
  const ms = Date.parse(asOf);
  return Number.isNaN(ms) ? null : ms * 1000;
}

/**
 * One page of a series' revisions from its cached block, exactly as readObservationHistory's SQL
 * computes it; null when the SQL must answer (see the module comment).
 */
export async function readCachedObservationHistory(
  db: SnapshotDb,
  seriesKey: string,
  query: HistoryQuery,
): Promise<HistoryPage<ObservationRow> | null> {
  const cache = cacheOf(db);
  const asOfUs = asOfMicros(query.asOf);
  if (!cache || asOfUs === null) return null;
  const after = query.after;
  if (after && !PRINTABLE_ASCII.test(after.period)) return null;
  const block = await cache.block(seriesKey);
  if (!block) return null;
  return computePage(block, asOfUs, resolvePeriodFilter(query), after, query.limit);
}

/**
 * The values in force at as_of of every period (readValuesInForceAsOf's SQL, transforms.ts): per
 * period its highest revision observed at or before as_of, which in the block's (period,
 * revision) order is the last known row of the period. Null when the SQL must answer.
 */
export async function readCachedValuesInForce(
  db: SnapshotDb,
  seriesKey: string,
  asOf: string | null,
): Promise<InForceRow[] | null> {
  const cache = cacheOf(db);
  const asOfUs = asOfMicros(asOf);
  if (!cache || asOfUs === null) return null;
  const block = await cache.block(seriesKey);
  if (!block) return null;
  const { rows, observedUs } = block;
  const out: InForceRow[] = [];
  let last: RevisionBlock['rows'][number] | null = null;
  for (let i = 0; i < rows.length; i++) {
    if (observedUs[i]! > asOfUs) continue;
    const row = rows[i]!;
    if (last && last.period !== row.period) out.push(inForce(last));
    last = row;
  }
  if (last) out.push(inForce(last));
  return out;
}

const inForce = (row: RevisionBlock['rows'][number]): InForceRow => ({
  period: row.period,
  value: row.value,
  revision_number: row.revision_number,
  observed_at: row.observed_at,
});

/**
 * The period filter of periodRangeSql (history.ts) in JavaScript: per period form (by length,
 * then a `Q` at position 6) the bounds of bindPeriodRange, plus the two plain comparisons.
 */
function resolvePeriodFilter(query: HistoryQuery): (period: string) => boolean {
  if (query.from === null && query.to === null) return () => true;
  const range = resolvePeriodRange(query.from, query.to);
  // The same bounds the SQL is bound with.
  const b = bindPeriodRange(range);
  const bound = (period: string, side: 'from' | 'to') => {
    if (period.length === 10) return b[`${side}_day`]!;
    if (period.length === 4) return b[`${side}_year`]!;
    return period[5] === 'Q' ? b[`${side}_quarter`]! : b[`${side}_month`]!;
  };
  return (period) =>
    period >= b.from_year! &&
    period <= b.to_quarter! &&
    period >= bound(period, 'from') &&
    period <= bound(period, 'to');
}

/**
 * The page: the revisions observed at or before as_of in a period of the range and not before
 * the cursor's period are "known"; a known row is in force when the next known row has another
 * period (lead(period) in the SQL); the rows after the cursor's (period, revision), limit + 1 of
 * them, tell the page and whether more follow.
 */
function computePage(
  block: RevisionBlock,
  asOfUs: number,
  inRange: (period: string) => boolean,
  after: HistoryQuery['after'],
  limit: number,
): HistoryPage<ObservationRow> {
  const { rows, observedUs } = block;
  const out: ObservationRow[] = [];
  const afterPeriod = after?.period ?? '';
  const afterRevision = after?.revision_number ?? 0;
  // The previous known row, waiting for the next to tell whether it is in force.
  let pending: Omit<ObservationRow, 'in_force'> | null = null;
  let rangePeriod: string | null = null;
  let rangeOk = false;
  const emit = (row: Omit<ObservationRow, 'in_force'>, inForce: boolean) => {
    if (
      afterPeriod === '' ||
      row.period > afterPeriod ||
      (row.period === afterPeriod && row.revision_number > afterRevision)
    )
      out.push({ ...row, in_force: inForce });
  };
  for (let i = 0; i < rows.length && out.length <= limit; i++) {
    if (observedUs[i]! > asOfUs) continue;
    const row = rows[i]!;
    if (row.period !== rangePeriod) {
      rangePeriod = row.period;
      rangeOk = inRange(row.period) && (afterPeriod === '' || row.period >= afterPeriod);
    }
    if (!rangeOk) continue;
    if (pending) emit(pending, pending.period !== row.period);
    pending = row;
  }
  if (pending && out.length <= limit) emit(pending, true);
  return { rows: out.slice(0, limit), more: out.length > limit };
}
