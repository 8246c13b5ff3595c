import type { BulkSnapshot } from '../api/v1/bulk.ts';
import type { RequestInputs } from '../api/v1/static-requests.ts';
import type { SiteData } from './site-data.ts';

/**
 * The hand-over between `mmds build` and the Astro pages it renders. Astro bundles the pages
 * into their own module graph, so module state cannot be shared; the build puts its context
 * on a well-known global symbol before calling Astro and removes it afterwards. It lives in site/,
 * the pages' layer, so the pages read it from their own layer and build/ sets it from above.
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
  /**
   * The bulk files of dist/, newest snapshot first (src/build/bulk-files.ts), for the bulk page
   * and the pages' download links: written while Astro renders the payloads, which come first.
   */
  bulk?: Promise<readonly BulkSnapshot[]>;
  /**
   * Whether a page of one of many (a market's, a series') is rendered, given what it is computed
   * from; false: the build takes the earlier build's file (src/build/reuse.ts). Absent: all are.
   */
  renders?(file: string, inputs: RequestInputs): boolean;
}

/** The pages a bridge renders out of `pages`, each with its file under dist/ and its inputs. */
export function pagesToRender<T>(
  bridge: BuildBridge,
  pages: readonly T[],
  describe: (page: T) => { file: string; inputs: RequestInputs },
): T[] {
  if (!bridge.renders) return [...pages];
  return pages.filter((page) => {
    const { file, inputs } = describe(page);
    return bridge.renders!(file, inputs);
  });
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
