import { statSync } from 'node:fs';
import { join } from 'node:path';
import { BUILD_MANIFEST_FILE } from '../build/build-manifest.ts';
import { loadStaticSite, type StaticSite } from './static-site.ts';

/** The built site in memory, as of the last check. */
export interface WatchedStaticSite {
  current: () => StaticSite | null;
  stop: () => void;
}

/** Keeps dist/ in memory and reloads it when a new build lands (its manifest changes). */
export function watchStaticSite(
  distDir: string,
  pollMs: number,
  log: (entry: Record<string, unknown>) => void,
): WatchedStaticSite {
  const manifest = join(distDir, BUILD_MANIFEST_FILE);
  let site: StaticSite | null = null;
  let seen = -1;
  const check = () => {
    let mtime = 0;
    try {
      mtime = statSync(manifest).mtimeMs;
    } catch {
      mtime = 0;
    }
    if (mtime === seen) return;
    seen = mtime;
    try {
      site = mtime === 0 ? null : loadStaticSite(distDir);
      log({ event: 'static_loaded', snapshot: site?.snapshot ?? null, files: site?.fileCount ?? 0 });
    } catch (error) {
      log({ event: 'static_refused', error: (error as Error).message });
    }
  };
  check();
  const timer = pollMs > 0 ? setInterval(check, pollMs) : null;
  timer?.unref();
  return {
    current: () => site,
    stop: () => {
      if (timer) clearInterval(timer);
    },
  };
}
