import { readMacroLatest } from '../../query/macro.ts';
import type { PayloadFunction } from './context.ts';
import { readNextReleases } from './next-releases.ts';
import { historyLinks } from './series-history.ts';
import { seriesIdentity } from './series-summary.ts';

/** Endpoint 4: per tracked macro series the latest period and value, when it was published, its revision. */
export const getMacroLatest: PayloadFunction = async ({ db, now }) => {
  const rows = await readMacroLatest(db);
  const next = await readNextReleases(db, now);
  return {
    data: rows.map((row) => ({
      ...seriesIdentity(row),
      seasonal_adjustment: row.seasonal_adjustment,
      country: row.country,
      latest:
        row.period === null
          ? null
          : {
              period: row.period,
              value: row.value,
              published_at: row.published_at,
              published_at_method: row.published_at_method ?? 'collected',
              revision_number: row.revision_number,
            },
      first_period: row.first_period,
      periods: row.periods,
      next_release: next.series.get(row.key) ?? null,
      ...historyLinks(row.slug, row.period !== null),
    })),
  };
};
