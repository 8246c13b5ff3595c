import { getStatus } from '../api/v1/status.ts';
import type { SnapshotDb } from '../query/snapshot-db.ts';
import { type EndpointDoc, readApiReference } from './data/api-reference.ts';
import { readSectorsPage, readSourcesPage, type SectorRow, type SourceRow } from './data/catalog-pages.ts';
import { type DocPage, readDocPages } from './data/doc-pages.ts';
import { type FxPage, readFxPage } from './data/fx-page.ts';
import { type HomePage, readHomePage } from './data/home-page.ts';
import { type MacroListItem, type MacroPage, readMacroList, readMacroPage } from './data/macro-pages.ts';
import { type MarketListItem, type MarketPage, readMarketList, readMarketPage } from './data/market-pages.ts';
import { readPublicData, type SiteContext } from './data/site-context.ts';
import { type ReleasesPage, readReleasesPage } from './releases-page.ts';
import type { StatusData } from './status-page.ts';

/**
 * What the site's pages read at build time, through the build bridge. Every function returns
 * display-ready data computed from the public payloads and the query layer; results are kept,
 * so a page and the listings that link to it share one computation.
 */
export interface SiteData {
  /** The snapshot the site shows and the build time (RFC 3339). */
  snapshot: { id: string; renderedAt: string };
  readStatus(): Promise<StatusData>;
  readHomePage(): Promise<HomePage>;
  readApiReference(): Promise<EndpointDoc[]>;
  /** The Markdown files of docs/ as pages (/docs/api/revisions/, /docs/keys/, ...). */
  readDocPages(): Promise<DocPage[]>;
  readMarketList(): Promise<MarketListItem[]>;
  readMarketPage(slug: string): Promise<MarketPage>;
  readMacroList(): Promise<MacroListItem[]>;
  readMacroPage(slug: string): Promise<MacroPage>;
  readFxPage(): Promise<FxPage>;
  readSources(): Promise<SourceRow[]>;
  readSectors(): Promise<SectorRow[]>;
  readReleasesPage(): Promise<ReleasesPage>;
}

/** Keeps the promise of the first call. */
function once<T>(read: () => Promise<T>): () => Promise<T> {
  let result: Promise<T> | undefined;
  return () => {
    result ??= read();
    return result;
  };
}

/** Keeps the promise of the first call per slug. */
function oncePerSlug<T>(read: (slug: string) => Promise<T>): (slug: string) => Promise<T> {
  const results = new Map<string, Promise<T>>();
  return (slug) => {
    const result = results.get(slug) ?? read(slug);
    results.set(slug, result);
    return result;
  };
}

/** Creates the site's data readers over an open snapshot, as of the build time `now`. */
export function createSiteData(db: SnapshotDb, now: Date): SiteData {
  const context: SiteContext = { db, now };
  const status = once(async () => (await readPublicData<StatusData>(context, getStatus)).data);
  const markets = once(() => readMarketList(context));
  const macro = once(() => readMacroList(context));
  const fx = once(() => readFxPage(context));
  const sources = once(() => readSourcesPage(context));
  const sectors = once(async () => readSectorsPage(context, await markets(), await macro()));
  return {
    snapshot: { id: db.id, renderedAt: `${now.toISOString().slice(0, 19)}Z` },
    readStatus: status,
    readHomePage: once(async () =>
      readHomePage(context, {
        markets: await markets(),
        macro: await macro(),
        fx: await fx(),
        sources: await sources(),
        sectors: await sectors(),
        status: await status(),
      }),
    ),
    readApiReference: once(async () => {
      const market = (await markets()).find((m) => m.latestDate !== null);
      // A revised series makes the keyed examples show what the history endpoints are for.
      const withData = (await macro()).filter((m) => m.latestPeriod !== null);
      const series = withData.find((m) => (m.revisionNumber ?? 0) > 1) ?? withData[0];
      return readApiReference(context, {
        market: market?.slug ?? null,
        macroSlug: series?.slug ?? null,
        macroKey: series?.key ?? null,
      });
    }),
    readDocPages: once(async () => readDocPages()),
    readMarketList: markets,
    readMarketPage: oncePerSlug((slug) => readMarketPage(context, slug)),
    readMacroList: macro,
    readMacroPage: oncePerSlug((slug) => readMacroPage(context, slug)),
    readFxPage: fx,
    readSources: sources,
    readSectors: sectors,
    readReleasesPage: once(() => readReleasesPage(context)),
  };
}
