import type { BulkSnapshot } from '../api/v1/bulk.ts';
import type { SiteData } from '../site/site-data.ts';

/**
 * The hand-over between `mmds build` and the Astro pages it renders. Astro bundles the pages
 * into their own module graph, so module state cannot be shared; the build puts its context
 * on a well-known global symbol before calling Astro and removes it afterwards.
 */

/** One file the static build writes, as the pages see it. */
export interface BridgeFile {
  /** Path under dist/ without a leading slash, e.g. `api/v1/status/index.json`. */
  file: string;
  /** Renders the file's body. */
  render(): Promise<string>;
}

/** What `mmds build` hands to the pages. */
export interface BuildBridge {
  files: readonly BridgeFile[];
  /** The data of the documentation site's pages (src/pages/*.astro). */
  site: SiteData;
  /** The bulk files of dist/, newest snapshot first (src/build/bulk-files.ts), for the bulk page. */
  bulk?: readonly BulkSnapshot[];
}

const KEY = Symbol.for('mmds.build-bridge');

/** Installs the bridge for the duration of an Astro build. */
export function setBuildBridge(bridge: BuildBridge | null): void {
  (globalThis as Record<symbol, unknown>)[KEY] = bridge;
}

/** The bridge the running build installed; pages fail loudly outside `mmds build`. */
export function getBuildBridge(): BuildBridge {
  const bridge = (globalThis as Record<symbol, unknown>)[KEY] as BuildBridge | null | undefined;
  if (!bridge) throw new Error('the static pages are rendered by `mmds build`, not by astro directly');
  return bridge;
}
