import {
  readSectorMarkets,
  readSectorSeries,
  readSectors,
  type SectorMemberRow,
} from '../../query/catalog-lists.ts';
import type { PayloadFunction } from './context.ts';
import { isStale } from './freshness.ts';

/** How well a sector is covered right now (docs/api/reference-and-catalog.md defines each value). */
export type Coverage = 'full' | 'partial' | 'stale' | 'none';

/** Freshness counts of a group of series or markets at one instant. */
interface MemberCounts {
  total: number;
  fresh: number;
  stale: number;
  withoutData: number;
  lastObservedAt: string | null;
}

function countMembers(members: readonly SectorMemberRow[], now: Date): MemberCounts {
  const counts: MemberCounts = {
    total: members.length,
    fresh: 0,
    stale: 0,
    withoutData: 0,
    lastObservedAt: null,
  };
  for (const member of members) {
    const observed = member.last_observed_at;
    if (observed === null) {
      counts.withoutData += 1;
      continue;
    }
    if (isStale(observed, member.stale_after_days, now)) counts.stale += 1;
    else counts.fresh += 1;
    // RFC 3339 UTC strings of one format compare in time order.
    if (counts.lastObservedAt === null || observed > counts.lastObservedAt) counts.lastObservedAt = observed;
  }
  return counts;
}

/** Classifies a sector from the freshness of all its series and markets together. */
function classifyCoverage(series: MemberCounts, markets: MemberCounts): Coverage {
  const fresh = series.fresh + markets.fresh;
  const withData = fresh + series.stale + markets.stale;
  if (withData === 0) return 'none';
  if (fresh === 0) return 'stale';
  return fresh === series.total + markets.total ? 'full' : 'partial';
}

function groupBySector(rows: readonly SectorMemberRow[]): Map<string, SectorMemberRow[]> {
  const groups = new Map<string, SectorMemberRow[]>();
  for (const row of rows) groups.set(row.sector, [...(groups.get(row.sector) ?? []), row]);
  return groups;
}

/**
 * Endpoint 10: per catalog sector its series (of redistributable sources) and tracked markets,
 * how many are fresh or stale at `now` by their source's allowance, and a coverage status.
 */
export const getSectors: PayloadFunction = async ({ db, now }) => {
  const [sectors, series, markets] = await Promise.all([
    readSectors(db),
    readSectorSeries(db),
    readSectorMarkets(db),
  ]);
  const seriesBySector = groupBySector(series);
  const marketsBySector = groupBySector(markets);
  return {
    data: sectors.map((sector) => {
      const s = countMembers(seriesBySector.get(sector.id) ?? [], now);
      const m = countMembers(marketsBySector.get(sector.id) ?? [], now);
      const latest = [s.lastObservedAt, m.lastObservedAt].filter((t) => t !== null).sort();
      return {
        id: sector.id,
        name: sector.name,
        description: sector.description,
        series_count: s.total,
        markets_count: m.total,
        fresh_series: s.fresh,
        stale_series: s.stale,
        series_without_data: s.withoutData,
        fresh_markets: m.fresh,
        stale_markets: m.stale,
        markets_without_data: m.withoutData,
        last_observed_at: latest.at(-1) ?? null,
        coverage: classifyCoverage(s, m),
      };
    }),
    meta: { checked_at: `${now.toISOString().slice(0, 19)}Z` },
  };
};
