import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { runStaticBuild } from '../../build/run-static-build.ts';
import { resolveLayout } from '../../store/layout.ts';
import { readCurrentId } from '../../store/manifest.ts';
import { PIPELINE_VERSION } from '../../version.ts';
import type { CommandContext } from '../context.ts';
import { UsageError } from '../usage-error.ts';

/** The project root, where astro.config.mjs and src/pages live. */
const PROJECT_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Registers `mmds build`. */
export function registerBuild(program: Command, getContext: () => CommandContext): void {
  program
    .command('build')
    .description('render the public endpoints of the current snapshot to static files (Astro) for a CDN')
    .option('--out <dir>', 'output directory (default: dist/ in the working directory, or MMDS_DIST_DIR)')
    .option('--force', 'rebuild even if the output already holds the current snapshot')
    .addHelpText(
      'after',
      '\nWrites one JSON file per endpoint and filter value, gzip and brotli copies, _headers and _redirects\nfor static hosts, and build-manifest.json with ETags.\n\nExamples:\n  mmds build\n  mmds build --out /srv/www/api --json',
    )
    .action(async (flags: { out?: string; force?: boolean }) => {
      const context = getContext();
      const layout = resolveLayout(context.config.dataDir);
      const snapshotId = readCurrentId(layout);
      if (snapshotId === null)
        throw new UsageError('no snapshot published yet: run mmds ingest, then mmds publish');
      const result = await runStaticBuild({
        layout,
        snapshotId,
        root: PROJECT_ROOT,
        outDir: flags.out ? resolve(flags.out) : context.config.distDir,
        now: context.now(),
        pipelineVersion: PIPELINE_VERSION,
        force: flags.force,
        progress: (message) => context.reporter.progress(message),
      });
      context.reporter.result(result);
      context.reporter.line(
        result.status === 'unchanged'
          ? `dist already holds snapshot ${result.snapshot}; nothing to do (use --force to rebuild)`
          : `built snapshot ${result.snapshot}: ${result.files} files, ${result.bytes} bytes, ${result.routes} routes in ${result.seconds} s`,
      );
    });
}
