import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { BUILD_MANIFEST_FILE } from '../../build/build-manifest.ts';
import { runStaticBuild, type StaticBuildResult } from '../../build/run-static-build.ts';
import { type DistUploadResult, uploadDist } from '../../build/upload-dist.ts';
import { resolveLayout } from '../../store/layout.ts';
import { readCurrentId } from '../../store/manifest.ts';
import {
  type ObjectStore,
  type ObjectStoreLocation,
  parseObjectStoreUrl,
} from '../../store/object-store/object-store.ts';
import { PIPELINE_VERSION } from '../../version.ts';
import type { CommandContext } from '../context.ts';
import { ReportedFailure } from '../reported-failure.ts';
import { UsageError } from '../usage-error.ts';

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
    .option(
      '--to <url>',
      'then upload dist/ to an S3-compatible bucket a CDN uses as its origin, s3://bucket/prefix',
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

With --to s3://bucket/prefix, after a successful build (or on a dist/ that already holds the
current snapshot) every file of build-manifest.json is uploaded under the prefix with its
Content-Type and Cache-Control, the API's extensionless request paths as well (api/v1/status
beside api/v1/status/index.json); objects the bucket holds with the same sha256 are skipped;
assets go first, pages last and build-manifest.json very last. No .gz/.br copies, _headers,
_redirects or nginx.conf. Objects of older builds are left (docs/deploy-static.md, "The static
tier from the same bucket"). An unreachable bucket is exit 69 (checked before the build too).
Endpoint and keys: AWS_ENDPOINT_URL_S3 (path-style), AWS_REGION, AWS_ACCESS_KEY_ID,
AWS_SECRET_ACCESS_KEY.

Examples:
  mmds build
  mmds build --out /srv/www/api --json
  mmds build --force
  mmds build --site-only
  mmds build --to s3://mmds-site/prod`,
    )
    .action(async (flags: { out?: string; force?: boolean; siteOnly?: boolean; to?: string }) => {
      const context = getContext();
      const location = flags.to === undefined ? null : parseTarget(flags.to, flags.siteOnly === true);
      const layout = resolveLayout(context.config.dataDir);
      const snapshotId = readCurrentId(layout);
      if (snapshotId === null)
        throw new ReportedFailure(
          `no snapshot published yet in ${context.config.dataDir}: run mmds ingest, then mmds publish (or check MMDS_DATA_DIR)`,
        );
      const store = location === null ? null : await openReachableStore(location, context);
      try {
        const outDir = flags.out ? resolve(flags.out) : context.config.distDir;
        const result = await runStaticBuild({
          layout,
          snapshotId,
          root: PROJECT_ROOT,
          outDir,
          now: context.now(),
          pipelineVersion: PIPELINE_VERSION,
          force: flags.force,
          siteOnly: flags.siteOnly,
          progress: (message, count) => context.reporter.progress(message, count),
        });
        const uploaded = store === null ? null : await upload(store, outDir, context);
        context.reporter.result(uploaded === null ? result : { ...result, store: uploaded });
        context.reporter.line(
          result.status === 'unchanged'
            ? `dist already holds snapshot ${result.snapshot}; nothing to do (use --force to rebuild)`
            : `built snapshot ${result.snapshot}: ${result.files} files, ${result.bytes} bytes, ${result.routes} routes in ${result.seconds} s (${describeReuse(result)})`,
        );
        if (uploaded !== null) context.reporter.line(describeUpload(uploaded));
      } finally {
        store?.close();
      }
    });
}

/** The bucket of --to, or a usage error (a bad URL, or a site-only build, which is not for a CDN). */
function parseTarget(url: string, siteOnly: boolean): ObjectStoreLocation {
  if (siteOnly)
    throw new UsageError('--to cannot be used with --site-only: a site-only build is not for a CDN');
  try {
    return parseObjectStoreUrl(url);
  } catch (error) {
    throw new UsageError(`--to: ${(error as Error).message}`);
  }
}

/**
 * Opens the bucket and lists its build manifest's key once, so that an unreachable or missing
 * bucket or bad credentials fail in a second (exit 69) rather than after the build (a HEAD would
 * not do: a missing bucket answers it like a missing object).
 */
async function openReachableStore(
  location: ObjectStoreLocation,
  context: CommandContext,
): Promise<ObjectStore> {
  // The SDK is loaded only by a build that uploads.
  const { openS3Store } = await import('../../store/object-store/s3-store.ts');
  const store = openS3Store(location, context.config.s3);
  try {
    await store.list(BUILD_MANIFEST_FILE);
    return store;
  } catch (error) {
    store.close();
    throw error;
  }
}

async function upload(
  store: ObjectStore,
  outDir: string,
  context: CommandContext,
): Promise<DistUploadResult> {
  return await uploadDist(store, outDir, {
    progress: (message, count) => context.reporter.progress(message, count),
  });
}

function describeUpload(result: DistUploadResult): string {
  return (
    `uploaded snapshot ${result.snapshot}'s dist to ${result.url}: ${result.uploaded.objects} of ${result.objects} object(s), ` +
    `${result.uploaded.bytes} bytes (${result.unchanged} unchanged, ${result.aliases} request-path aliases); ` +
    `${result.stale} object(s) of older builds left under the prefix` +
    (result.deleted_keys.length > 0
      ? `; ${result.deleted_keys.length} COT bulk file(s) outside the public window deleted`
      : '')
  );
}

/** How much of the earlier build a build took, in words. */
function describeReuse(result: StaticBuildResult): string {
  if (!result.reused) return `all rendered: ${result.full_because ?? 'nothing unchanged to take'}`;
  return `${result.written} written, ${result.reused} unchanged taken from the earlier build`;
}
