import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { runStaticBuild, type StaticBuildResult } from '../../build/run-static-build.ts';
import { resolveLayout } from '../../store/layout.ts';
import { readCurrentId } from '../../store/manifest.ts';
import { PIPELINE_VERSION } from '../../version.ts';
import type { CommandContext } from '../context.ts';
import { ReportedFailure } from '../reported-failure.ts';

/** The project root, where astro.config.mjs and src/pages live. */
const PROJECT_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Registers `mmds build`. */
export function registerBuild(program: Command, getContext: () => CommandContext): void {
  program
    .command('build')
    .description('render the public endpoints of the current snapshot to static files (Astro) for a CDN')
    .option('--out <dir>', 'output directory (default: dist/ in the working directory, or MMDS_DIST_DIR)')
    .option(
      '--force',
      'rebuild even if the output already holds the current snapshot, rendering every file again',
    )
    .option(
      '--site-only',
      'pages, assets and bulk files only, no payload files: mmds serve answers the public routes from the snapshot (what npm start serves while its full build runs; not for a CDN)',
    )
    .addHelpText(
      'after',
      `
Writes one JSON file per public endpoint, filter value and market, the OpenAPI document
(api/v1/openapi.json), gzip and brotli copies, _headers and _redirects for static hosts
(docs/deploy-static.md) and build-manifest.json with ETags. The new tree is built beside the old
one and swapped in at the end; a running mmds serve picks it up within a second. On top of an
earlier build of the same code, only the files whose data changed are rendered again; the others
are taken with their ETags (docs/operations.md, "Incremental builds"). Prints the snapshot,
files, bytes and routes written, and how many files were rendered.

Examples:
  mmds build
  mmds build --out /srv/www/api --json
  mmds build --force
  mmds build --site-only`,
    )
    .action(async (flags: { out?: string; force?: boolean; siteOnly?: boolean }) => {
      const context = getContext();
      const layout = resolveLayout(context.config.dataDir);
      const snapshotId = readCurrentId(layout);
      if (snapshotId === null)
        throw new ReportedFailure(
          `no snapshot published yet in ${context.config.dataDir}: run mmds ingest, then mmds publish (or check MMDS_DATA_DIR)`,
        );
      const result = await runStaticBuild({
        layout,
        snapshotId,
        root: PROJECT_ROOT,
        outDir: flags.out ? resolve(flags.out) : context.config.distDir,
        now: context.now(),
        pipelineVersion: PIPELINE_VERSION,
        force: flags.force,
        siteOnly: flags.siteOnly,
        progress: (message, count) => context.reporter.progress(message, count),
      });
      context.reporter.result(result);
      context.reporter.line(
        result.status === 'unchanged'
          ? `dist already holds snapshot ${result.snapshot}; nothing to do (use --force to rebuild)`
          : `built snapshot ${result.snapshot}: ${result.files} files, ${result.bytes} bytes, ${result.routes} routes in ${result.seconds} s (${describeReuse(result)})`,
      );
    });
}

/** How much of the earlier build a build took, in words. */
function describeReuse(result: StaticBuildResult): string {
  if (!result.reused) return `all rendered: ${result.full_because ?? 'nothing unchanged to take'}`;
  return `${result.written} written, ${result.reused} unchanged taken from the earlier build`;
}
