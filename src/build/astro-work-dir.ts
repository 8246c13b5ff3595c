import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { AstroIntegration } from 'astro';

/**
 * Where Astro builds, whatever the output directory and the working directory of the process.
 *
 * Astro 7 writes the server chunks it renders the pages with next to the output (`<outDir>/.prerender`)
 * when the output is inside `process.cwd()`, else into `<cwd>/.astro`, and then imports them from
 * there: the chunks' bare imports (`astro/…`, `@duckdb/node-api`) only resolve when that place is
 * inside the project, so `mmds build --out /srv/site` failed when run from another directory. The build
 * therefore happens in a private directory of the project's cache (`node_modules/.cache/mmds-build/`),
 * with the chunks' directory pinned there too ({@link pinServerDir}), and the result is moved into
 * the output's staging directory afterwards ({@link moveDir}), copied when that is on another
 * filesystem.
 */
export interface AstroWorkDir {
  /** Astro's `outDir`: the built pages and files. */
  outDir: string;
  /** Astro's `build.server`: the chunks it renders with (removed by Astro after the build). */
  serverDir: string;
  /** Removes the whole working directory. */
  remove(): void;
}

/** The project's cache directory of `mmds build` (each build has its own directory inside). */
export function astroCacheDir(root: string): string {
  return join(root, 'node_modules', '.cache', 'mmds-build');
}

/** Creates a fresh working directory for one build under the project's cache directory. */
export function createAstroWorkDir(root: string): AstroWorkDir {
  const cache = astroCacheDir(root);
  removeAbandoned(cache);
  const dir = join(cache, `${process.pid}-${randomBytes(4).toString('hex')}`);
  mkdirSync(dir, { recursive: true });
  return {
    outDir: join(dir, 'out'),
    serverDir: join(dir, 'server'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Removes the working directories of builds whose process has died (killed mid-build). */
function removeAbandoned(cache: string): void {
  if (!existsSync(cache)) return;
  for (const name of readdirSync(cache)) {
    const pid = Number(name.split('-')[0]);
    if (Number.isInteger(pid) && pid > 0 && !isAlive(pid)) {
      rmSync(join(cache, name), { recursive: true, force: true });
    }
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * An integration that makes Astro put its server chunks in `build.server` instead of a directory
 * chosen from `process.cwd()`. It declares a static-only adapter whose one feature is
 * `preserveBuildServerDir`; the output stays the same static files.
 */
export function pinServerDir(): AstroIntegration {
  return {
    name: 'mmds:pin-server-dir',
    hooks: {
      'astro:config:done': ({ setAdapter }) => {
        setAdapter({
          name: 'mmds-static',
          entrypointResolution: 'auto',
          adapterFeatures: { buildOutput: 'static', preserveBuildServerDir: true },
          supportedAstroFeatures: { staticOutput: 'stable', sharpImageService: 'stable' },
        });
      },
    },
  };
}

/**
 * Moves a directory to a path that does not exist yet (creating its parents): a rename on the same
 * filesystem, a copy and delete across filesystems (EXDEV).
 */
export function moveDir(from: string, to: string): void {
  mkdirSync(dirname(to), { recursive: true });
  try {
    renameSync(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    rmSync(to, { recursive: true, force: true });
    cpSync(from, to, { recursive: true });
    rmSync(from, { recursive: true, force: true });
  }
}
