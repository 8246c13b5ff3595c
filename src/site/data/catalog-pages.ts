import { getSources } from '../../api/v1/catalog.ts';
import { getSectors } from '../../api/v1/sectors.ts';
import { getSeriesCatalogue } from '../../api/v1/series.ts';
import type { SourceCatalogRow } from '../../query/catalog-lists.ts';
import { formatTimestamp } from '../format.ts';
import type { MacroListItem } from './macro-pages.ts';
import type { MarketListItem } from './market-pages.ts';
import { readPublicData, type SiteContext } from './site-context.ts';

/** A source of the public `/api/v1/sources` payload. */
export type SourceRow = SourceCatalogRow;

/** A sector with its measured coverage and links to the pages of its members. */
export interface SectorRow {
  id: string;
  name: string;
  description: string | null;
  coverage: string;
  series: { total: number; fresh: number; stale: number; withoutData: number };
  markets: { total: number; fresh: number; stale: number; withoutData: number };
  lastObserved: string;
  links: Array<{ href: string; label: string }>;
}

/** Lists every catalog source with its licence and rights (metadata only, never data). */
export async function readSourcesPage(context: SiteContext): Promise<SourceRow[]> {
  return (await readPublicData<SourceRow[]>(context, getSources)).data;
}

interface SectorPayload {
  id: string;
  name: string;
  description: string | null;
  series_count: number;
  markets_count: number;
  fresh_series: number;
  stale_series: number;
  series_without_data: number;
  fresh_markets: number;
  stale_markets: number;
  markets_without_data: number;
  last_observed_at: string | null;
  coverage: string;
}

/**
 * Lists the sectors with their coverage as `/api/v1/sectors` measures it, each linked to the
 * pages of its markets and macro series.
 */
export async function readSectorsPage(
  context: SiteContext,
  markets: readonly MarketListItem[],
  macro: readonly MacroListItem[],
): Promise<SectorRow[]> {
  const [sectors, series] = await Promise.all([
    readPublicData<SectorPayload[]>(context, getSectors),
    readPublicData<Array<{ slug: string; sector: string | null; source: string }>>(
      context,
      getSeriesCatalogue,
    ),
  ]);
  const macroSlugs = new Map(macro.filter((m) => m.latestPeriod !== null).map((m) => [m.slug, m.name]));
  return sectors.data.map((sector) => ({
    id: sector.id,
    name: sector.name,
    description: sector.description,
    coverage: sector.coverage,
    series: {
      total: sector.series_count,
      fresh: sector.fresh_series,
      stale: sector.stale_series,
      withoutData: sector.series_without_data,
    },
    markets: {
      total: sector.markets_count,
      fresh: sector.fresh_markets,
      stale: sector.stale_markets,
      withoutData: sector.markets_without_data,
    },
    lastObserved: formatTimestamp(sector.last_observed_at),
    links: [
      ...markets
        // Only markets and series with data have a page: no link leads to an empty one.
        .filter((m) => m.sector === sector.id && m.latestDate !== null)
        .map((m) => ({ href: `/markets/${m.slug}/`, label: m.name })),
      ...series.data
        .filter((s) => s.sector === sector.id && macroSlugs.has(s.slug))
        .map((s) => ({ href: `/macro/${s.slug}/`, label: macroSlugs.get(s.slug)! })),
      ...(series.data.some((s) => s.sector === sector.id && s.source === 'ecb')
        ? [{ href: '/fx/', label: 'ECB euro reference rates' }]
        : []),
    ],
  }));
}
