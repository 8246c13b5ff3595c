import { invalidParameter } from '../../contract/errors.ts';
import { type ChangedKey, diffSnapshots } from '../../query/changes.ts';
import { listKnownSnapshots } from '../../query/known-snapshots.ts';
import type { SnapshotDb } from '../../query/snapshot-db.ts';
import { readManifest } from '../../store/manifest.ts';
import { SnapshotGoneError } from '../../store/snapshot-hold.ts';
import type { PayloadFunction } from './context.ts';

/** One row of the change feed (schemas/changes.ts CHANGES_ITEM), flat so that CSV is the same rows. */
interface ChangeRow
  extends Pick<
    ChangedKey,
    'report_type' | 'new_observations' | 'revisions' | 'backfilled' | 'period_start' | 'period_end'
  > {
  kind: 'series' | 'market';
  key: string;
  slug: string | null;
  name: string | null;
  source: string;
}

/** The catalog facts the feed names each key by, and whether a public answer may name it. */
async function readNames(db: SnapshotDb) {
  const series = await db.query<{
    key: string;
    source: string;
    redistributable: boolean;
    slug: string | null;
    name: string | null;
  }>(
    `SELECT r.key, r.source, r.redistributable, s.slug, s.name
       FROM series_rights r LEFT JOIN series s ON s.key = r.key`,
  );
  const markets = await db.query<{ code: string; slug: string; name: string }>(
    'SELECT code, slug, name FROM cot_markets',
  );
  return {
    series: new Map(series.map((row) => [row.key, row])),
    markets: new Map(markets.map((row) => [row.code, row])),
  };
}

function toRow(
  change: ChangedKey,
  names: Awaited<ReturnType<typeof readNames>>,
  cotHistory: boolean,
): ChangeRow | null {
  const rights = names.series.get(change.series_key);
  const market = change.market_code === null ? undefined : names.markets.get(change.market_code);
  // Without cot:history a market's entry counts the reports of the public window only (none: no entry).
  const view = change.table === 'cot_reports' && !cotHistory ? change.public : change;
  if (view.period_start === null || view.period_end === null) return null;
  const counts = {
    new_observations: view.new_observations,
    revisions: view.revisions,
    backfilled: view.backfilled,
    period_start: view.period_start,
    period_end: view.period_end,
  };
  if (change.table === 'cot_reports')
    return {
      kind: 'market',
      key: change.series_key,
      slug: market?.slug ?? null,
      name: market?.name ?? null,
      source: rights?.source ?? change.series_key.split('.')[0]!,
      report_type: change.report_type,
      ...counts,
    };
  return {
    kind: 'series',
    key: change.series_key,
    slug: rights?.slug ?? null,
    name: rights?.name ?? null,
    source: rights?.source ?? change.series_key.split('.')[0]!,
    report_type: null,
    ...counts,
  };
}

/**
 * Endpoint 22: what changed between snapshot `since` and the one in service (docs/api/changes.md).
 * Without a key only series and markets of redistributable sources are listed (never a word about
 * the others); a key with observations:read sees every source. A COT market's entry counts only
 * the reports of the public window unless the key holds cot:history. An unknown or pruned `since`
 * is a 400 that lists the ids the store still holds.
 */
export const getChanges: PayloadFunction = async ({ db, keyed, cotHistory = false }, params) => {
  const sinceId = String(params.query.since);
  let known = listKnownSnapshots(db.layout);
  const refuse = (why: string) =>
    invalidParameter(
      'since',
      `${why}; snapshot ids the store still holds, newest first: ${known.map((s) => s.id).join(', ')} (also listed in /api/v1/status)`,
    );
  if (!known.some((snapshot) => snapshot.id === sinceId))
    throw refuse(`a snapshot id the store still holds (${sinceId} is unknown or was pruned)`);
  let since: ReturnType<typeof readManifest>;
  try {
    since = readManifest(db.layout, sinceId);
  } catch {
    throw refuse(`a snapshot id the store still holds (${sinceId} was pruned)`);
  }
  const current = db.manifest;
  if (since.created_at > current.created_at)
    throw refuse(`a snapshot published at or before the one in service (${current.id})`);
  let changes: Awaited<ReturnType<typeof diffSnapshots>>;
  try {
    changes = await diffSnapshots(db.layout, since, current);
  } catch (error) {
    if (!(error instanceof SnapshotGoneError)) throw error;
    // Pruned between the manifest read and the hold on its files.
    known = listKnownSnapshots(db.layout);
    throw refuse(`a snapshot id the store still holds (${sinceId} was pruned)`);
  }
  const names = await readNames(db);
  const rows = changes.keys
    .filter((change) => keyed || names.series.get(change.series_key)?.redistributable === true)
    .map((change) => toRow(change, names, cotHistory))
    .filter((row): row is ChangeRow => row !== null);
  return {
    data: rows,
    meta: {
      since: { id: since.id, created_at: since.created_at },
      current: { id: current.id, created_at: current.created_at },
      view: keyed ? 'keyed' : 'public',
      method: changes.method,
      new_batches: changes.new_batches,
      reference_tables: changes.reference_tables,
    },
  };
};

/**
 * The `since` the documentation's example asks with: the parent of the snapshot in service while
 * the store still holds it (the changes of the last publish), else the snapshot itself.
 */
export function changesExampleSince(db: SnapshotDb): string {
  const parent = db.manifest.parent;
  return parent !== null && listKnownSnapshots(db.layout).some((s) => s.id === parent) ? parent : db.id;
}
