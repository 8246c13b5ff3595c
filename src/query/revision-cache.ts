import {
  type HistoryPage,
  type HistoryQuery,
  type InForceRow,
  OBSERVATION_COLUMNS,
  type ObservationRow,
} from './history-rows.ts';
import { emptyBlock, parseBlock, type RevisionBlock, rowOf } from './revision-block.ts';
import { computePage, resolvePeriodFilter } from './revision-pages.ts';
import type { SnapshotDb } from './snapshot-types.ts';
import { rfc3339 } from './sql.ts';

/**
 * Point-in-time pages of one series computed in JavaScript from its revisions held in memory.
 *
 * A keyed `as_of` page asks DuckDB to scan a Parquet partition, run a window and build JSON: about
 * 5-16 ms, while choosing the revisions in force from rows already in memory takes microseconds
 * (issue 27). So the first request for a series reads every revision of it once (one query, the
 * same to_json the DuckDB path uses, so every value has the same JSON form), and later pages of
 * any as_of, period range or cursor are computed here (revision-pages.ts). A block holds each
 * revision's JSON as bytes, serialised once (revision-block.ts): a page is those bytes put together
 * (api/v1/history-bytes.ts). The blocks live per snapshot (a snapshot never changes), in one LRU
 * bounded by bytes; the snapshot manager drops them on a switch.
 *
 * Anything this module cannot answer exactly like the SQL of history.ts falls back to it (returns
 * null): an as_of not in the normalised form, text outside printable ASCII (JavaScript and DuckDB
 * order it differently), a value without a JSON form (NaN), a cache of size 0.
 */

/** What the cache holds for a key: a block, or null when the series must go to DuckDB. */
type Slot = { block: RevisionBlock | null; bytes: number };

export { DEFAULT_REVISION_CACHE_MB } from './revision-cache-size.ts';

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
    const text = found?.rows ?? null;
    const parsed = text === null ? emptyBlock() : parseBlock(text);
    // A block above a quarter of the budget answers this request only (it would push out most
    // others); the series is remembered as one for DuckDB, whose pages read only the row groups
    // they need, instead of being read whole again by every request.
    const slot: Slot =
      parsed && parsed.bytes <= this.maxBytes / 4
        ? { block: parsed, bytes: parsed.bytes }
        : { block: null, bytes: 0 };
    // The key and the map entry too: unknown keys hold empty blocks.
    slot.bytes += 2 * seriesKey.length + 64;
    this.#slots.set(seriesKey, slot);
    this.#bytes += slot.bytes;
    this.#evict();
    return parsed;
  }

  /** Adds a form derived from a held block (CSV lines) to its charge; false when the block is no longer held. */
  charge(seriesKey: string, block: RevisionBlock, bytes: number): boolean {
    const slot = this.#slots.get(seriesKey);
    if (slot?.block !== block) return false;
    slot.bytes += bytes;
    this.#bytes += bytes;
    this.#evict();
    return true;
  }

  #evict(): void {
    for (const [key, old] of this.#slots) {
      if (this.#bytes <= this.maxBytes) break;
      this.#slots.delete(key);
      this.#bytes -= old.bytes;
    }
  }
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

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

/** A page chosen from a series' block: its rows by index, whether each is in force, and whether more follow. */
export interface CachedPage {
  seriesKey: string;
  block: RevisionBlock;
  indices: number[];
  inForce: boolean[];
  more: boolean;
}

/**
 * One page of a series' revisions chosen from its cached block, exactly as
 * readObservationHistory's SQL chooses it (rows by index into the block: their bytes are the
 * block's); null when the SQL must answer (see the module comment).
 */
export async function readCachedObservationPage(
  db: SnapshotDb,
  seriesKey: string,
  query: HistoryQuery,
): Promise<CachedPage | null> {
  const cache = cacheOf(db);
  const asOfUs = asOfMicros(query.asOf);
  if (!cache || asOfUs === null) return null;
  const after = query.after;
  if (after && !PRINTABLE_ASCII.test(after.period)) return null;
  const block = await cache.block(seriesKey);
  if (!block) return null;
  return { seriesKey, block, ...computePage(block, asOfUs, resolvePeriodFilter(query), after, query.limit) };
}

/** The same page as rows (what readObservationHistoryInDuckDb returns); null when the SQL must answer. */
export async function readCachedObservationHistory(
  db: SnapshotDb,
  seriesKey: string,
  query: HistoryQuery,
): Promise<HistoryPage<ObservationRow> | null> {
  const page = await readCachedObservationPage(db, seriesKey, query);
  if (!page) return null;
  return { rows: page.indices.map((i, n) => rowOf(page.block, i, page.inForce[n]!)), more: page.more };
}

/**
 * A form of a page's block made once (the CSV lines: api/v1/history-bytes.ts), kept with the block
 * and charged to the cache; made again only after the block was dropped.
 */
export function deriveFromBlock<T>(
  db: SnapshotDb,
  page: CachedPage,
  name: string,
  make: (block: RevisionBlock) => { value: T; bytes: number },
): T {
  const held = page.block.derived.get(name) as T | undefined;
  if (held !== undefined) return held;
  const { value, bytes } = make(page.block);
  if (caches.get(db)?.charge(page.seriesKey, page.block, bytes)) page.block.derived.set(name, value);
  return value;
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
  const { periods, observedUs } = block;
  const out: InForceRow[] = [];
  let last = -1;
  for (let i = 0; i < block.count; i++) {
    if (observedUs[i]! > asOfUs) continue;
    if (last >= 0 && periods[last] !== periods[i]) out.push(inForce(block, last));
    last = i;
  }
  if (last >= 0) out.push(inForce(block, last));
  return out;
}

const inForce = (block: RevisionBlock, i: number): InForceRow => ({
  period: block.periods[i]!,
  value: block.values[i]!,
  revision_number: block.revisions[i]!,
  observed_at: block.observedAt[i]!,
});
