import { readSourceFreshness } from '../../query/freshness.ts';
import { listKnownSnapshots } from '../../query/known-snapshots.ts';
import type { PayloadFunction } from './context.ts';
import { estimateNextRelease, isStale } from './freshness.ts';
import { readNextReleases } from './next-releases.ts';

/** Endpoint 1: the snapshot in service and the freshness of every source, computed at `now`. */
export const getStatus: PayloadFunction = async ({ db, now, replica }) => {
  const rows = await readSourceFreshness(db);
  const next = await readNextReleases(db, now);
  const sources = rows.map((row) => {
    const hasData = row.last_observed_at !== null;
    // A source with a release calendar (BLS, CFTC, ECB) gets its next scheduled release; the
    // others keep the estimate from the cadence, labelled as one.
    const scheduled = next.source.get(row.id) ?? null;
    const estimate = hasData ? estimateNextRelease(row.last_observed_at!, row.cadence) : null;
    return {
      id: row.id,
      name: row.name,
      sample: row.sample,
      cadence: row.cadence,
      series_count: row.series_count,
      last_period: row.last_period,
      last_observed_at: row.last_observed_at,
      next_release_due: scheduled?.scheduled_at ?? estimate,
      next_release_basis: scheduled !== null ? 'calendar' : estimate !== null ? 'estimate' : null,
      next_release: scheduled,
      stale_after_days: row.stale_after_days,
      stale: hasData ? isStale(row.last_observed_at!, row.stale_after_days, now) : null,
    };
  });
  const withData = sources.filter((s) => s.stale !== null);
  const staleCount = withData.filter((s) => s.stale).length;
  return {
    data: {
      service: 'ok',
      freshness: staleCount === 0 ? 'fresh' : staleCount === withData.length ? 'stale' : 'partially_stale',
      checked_at: `${now.toISOString().slice(0, 19)}Z`,
      snapshot: {
        id: db.manifest.id,
        published_at: db.manifest.created_at,
        parent: db.manifest.parent,
        pipeline_version: db.manifest.pipeline_version,
      },
      // The ids /api/v1/changes accepts as since (docs/api/changes.md).
      snapshots: listKnownSnapshots(db.layout),
      replica: replica ?? null,
      sources,
    },
  };
};
