import type { PayloadFunction } from '../../api/v1/context.ts';
import type { ParamName } from '../../contract/params.ts';
import type { HistoryPage, HistoryQuery } from '../../query/history.ts';
import type { SnapshotDb } from '../../query/snapshot-db.ts';

/** What the page data is computed from: the snapshot and the build time. */
export interface SiteContext {
  db: SnapshotDb;
  now: Date;
}

/**
 * Calls a payload function as an anonymous caller, so the site shows exactly what the public
 * API serves (and nothing of a source that may not be redistributed).
 */
export async function readPublicData<T>(
  context: SiteContext,
  payload: PayloadFunction,
  query: Partial<Record<ParamName, string>> = {},
  slug: string | null = null,
): Promise<{ data: T; meta: Record<string, unknown> }> {
  const result = await payload(
    { db: context.db, now: context.now, keyed: false },
    { slug, query, keyedParams: [] },
  );
  return { data: result.data as T, meta: result.meta ?? {} };
}

/** Rows per page when the site reads a whole history. */
const PAGE_ROWS = 10_000;

/** Reads every page of a history query (everything the snapshot knows, oldest first). */
export async function readWholeHistory<T extends { period: string; revision_number: number }>(
  read: (query: HistoryQuery) => Promise<HistoryPage<T>>,
): Promise<T[]> {
  const rows: T[] = [];
  let after: HistoryQuery['after'] = null;
  for (;;) {
    const page = await read({ asOf: null, from: null, to: null, after, limit: PAGE_ROWS });
    rows.push(...page.rows);
    const last = page.rows.at(-1);
    if (!page.more || !last) return rows;
    after = { period: last.period, revision_number: last.revision_number };
  }
}
