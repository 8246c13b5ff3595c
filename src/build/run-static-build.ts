import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { BulkSnapshot } from '../api/v1/bulk.ts';
import { renderStaticFile } from '../api/v1/render.ts';
import { listStaticRequests, type RequestInputs } from '../api/v1/static-requests.ts';
import { createOpenApiDocument } from '../contract/openapi.ts';
import { memoizeQueries } from '../query/memo-queries.ts';
import { openSnapshotDb } from '../query/snapshot-db.ts';
import { type BridgeFile, setBuildBridge } from '../site/build-bridge.ts';
import { createSiteData } from '../site/site-data.ts';
import { astroCacheDir, createAstroWorkDir, moveDir, pinServerDir } from './astro-work-dir.ts';
import { BUILD_MANIFEST_FILE, type BuildManifest, type BuiltFile, NO_STORE } from './build-manifest.ts';
import {
  BULK_DIR,
  listBulkRedirectRules,
  renderBulkHeaderRules,
  writeBulkFiles,
  writeBulkListings,
} from './bulk-files.ts';
import { compressedCopiesDir, openCompressedCopies } from './compressed-copies.ts';
import { assertReplaceable, readExistingManifest, swapInto, writeBody } from './dist-tree.ts';
import { compressAndDescribe, isCompressible } from './finish-dist.ts';
import { renderHeadersFile, renderRedirectsFile } from './host-rules.ts';
import { renderNginxConf } from './nginx-conf.ts';
import {
  canReuse,
  carriedBulkFiles,
  digestRenderInputs,
  planReuse,
  type ReusePlan,
  renderedFromOf,
  takeFile,
  unchangedBulkDatasets,
} from './reuse.ts';
import {
  countRenders,
  listStaticRoutes,
  OPENAPI_FILE,
  OPENAPI_ROUTE,
  summarise,
} from './static-build-steps.ts';
import type { StaticBuildOptions, StaticBuildResult } from './static-build-types.ts';
import { invalidFilterError, listStaticErrors } from './static-errors.ts';
import { withBuildLock } from './with-build-lock.ts';

export type { StaticBuildOptions, StaticBuildResult } from './static-build-types.ts';

/**
 * Renders every public endpoint of a snapshot to static files with Astro, and the
 * documentation site's pages from the same snapshot, then writes the
 * compressed copies, ETags, build manifest and static-host rules. The new tree is built beside
 * the old one and swapped in at the end, so a failed build leaves the old dist/ whole.
 */
export async function runStaticBuild(options: StaticBuildOptions): Promise<StaticBuildResult> {
  const started = performance.now();
  const existing = readExistingManifest(options.outDir);
  if (
    !options.force &&
    existing?.snapshot === options.snapshotId &&
    existing.pipeline_version === options.pipelineVersion &&
    // A site-only dist/ is never enough for a full build; a full one is enough for either.
    (options.siteOnly || !existing.site_only)
  ) {
    return summarise(existing, 'unchanged', started);
  }
  assertReplaceable(options.outDir);
  // Most files repeat the same small lookups (a source's licence, the latest rates): asked once.
  const db = memoizeQueries(await openSnapshotDb(options.layout, options.snapshotId));
  const staging = `${options.outDir}.staging`;
  const bulkStaging = `${options.outDir}.bulk-staging`;
  rmSync(staging, { recursive: true, force: true });
  rmSync(bulkStaging, { recursive: true, force: true });
  let bulkFiles: Promise<BulkSnapshot[]> | undefined;
  try {
    options.progress?.('build: listing public requests…');
    const requests = options.siteOnly ? [] : await listStaticRequests(db);
    const inputsDigest = digestRenderInputs(options.root);
    const plan: ReusePlan =
      options.force || options.siteOnly
        ? { base: null, why: options.force ? 'asked to (--force)' : 'a site-only build' }
        : await planReuse({
            layout: options.layout,
            snapshotId: options.snapshotId,
            previousDir: options.outDir,
            previous: existing,
            pipelineVersion: options.pipelineVersion,
            inputsDigest,
          });
    // Files of the earlier build that stand for the new one, by path under dist/.
    const reused = new Set<string>();
    const renders = (file: string, inputs: RequestInputs) => {
      if (plan.base === null || !canReuse(plan.base, file, inputs)) return true;
      reused.add(file);
      return false;
    };
    // The ETag of each endpoint file is the server's for the same request (api/v1/resource-etag.ts).
    const endpointEtags = new Map<string, string>();
    const files: BridgeFile[] = requests
      .filter((request) => renders(request.file, request.inputs))
      .map((request) => ({
        file: request.file,
        render: async () => {
          const { body, etag } = await renderStaticFile(db, request, options.now);
          endpointEtags.set(request.file, etag);
          return body;
        },
      }));
    files.push({ file: OPENAPI_FILE, render: async () => JSON.stringify(createOpenApiDocument()) });
    // The bulk export (DuckDB's threads, seconds on real data) runs while Astro renders the
    // payloads on this thread; the pages that list or link the files wait for it.
    bulkFiles = writeBulkFiles({
      layout: options.layout,
      snapshotId: options.snapshotId,
      stagingDir: bulkStaging,
      previousDir: options.outDir,
      previous: existing?.bulk ?? [],
      unchanged: unchangedBulkDatasets(plan.base),
    });
    // Awaited after Astro, where a failure is thrown; marked handled until then.
    bulkFiles.catch(() => undefined);
    const copies = openCompressedCopies(compressedCopiesDir(astroCacheDir(options.root)));
    // Each rendered payload's compressed copies are made on the thread pool while the main
    // thread renders the next; compressAndDescribe then finds them in the cache.
    const compressing: Promise<void>[] = [];
    const compressEarly = (file: string, body: string) => {
      const bytes = Buffer.from(body);
      if (!isCompressible(file, bytes.length)) return;
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      compressing.push(copies.prepare(bytes, sha256).catch(() => undefined));
    };
    setBuildBridge({
      files: countRenders(files, options.progress, compressEarly),
      site: createSiteData(db, options.now),
      bulk: bulkFiles,
      ...(plan.base === null ? {} : { renders }),
    });
    options.progress?.(`build: rendering ${files.length} files with Astro…`);
    const { build } = await import('astro');
    // Astro builds in the project's cache, never beside the output (src/build/astro-work-dir.ts).
    const work = createAstroWorkDir(options.root);
    try {
      await withBuildLock(join(options.root, '.astro', 'mmds-build.lock'), () =>
        build({
          root: options.root,
          outDir: work.outDir,
          build: { server: work.serverDir },
          integrations: [pinServerDir()],
          logLevel: 'error',
          mode: 'production',
        }),
      );
      moveDir(work.outDir, staging);
    } finally {
      work.remove();
    }
    options.progress?.('build: writing the bulk files…');
    const bulk = await bulkFiles;
    const taken = new Map<string, BuiltFile>();
    if (plan.base !== null) {
      options.progress?.(`build: taking ${reused.size} unchanged files from the earlier build…`);
      for (const file of reused) taken.set(file, takeFile(plan.base, file, staging));
    }
    const errors = listStaticErrors();
    for (const error of errors) writeBody(staging, error.file, error.body);
    // Beside dist/ until Astro's output is in place: the site's bulk page lists these files.
    moveDir(join(bulkStaging, BULK_DIR), join(staging, BULK_DIR));
    const generatedAt = `${options.now.toISOString().slice(0, 19)}Z`;
    const bulkRoutes = writeBulkListings(
      (file, body) => writeBody(staging, file, body),
      bulk,
      options.snapshotId,
      generatedAt,
    );
    const routes = [...listStaticRoutes(requests), ...bulkRoutes];
    const filterErrors = new Map(
      requests.flatMap((r) => Object.keys(r.query)).map((name) => [name, invalidFilterError(name as never)]),
    );
    writeBody(
      staging,
      '_headers',
      renderHeadersFile([...routes, OPENAPI_ROUTE], errors) + renderBulkHeaderRules(bulk),
    );
    writeBody(staging, '_redirects', renderRedirectsFile(routes, filterErrors, listBulkRedirectRules(bulk)));
    options.progress?.('build: compressing and hashing…');
    await Promise.all(compressing);
    const renderedFrom =
      plan.base === null ? {} : renderedFromOf(plan.base.manifest, reused, options.snapshotId);
    const manifest: BuildManifest = {
      format: 1,
      snapshot: options.snapshotId,
      pipeline_version: options.pipelineVersion,
      generated_at: `${options.now.toISOString().slice(0, 19)}Z`,
      inputs_digest: inputsDigest,
      ...(Object.keys(renderedFrom).length > 0 ? { rendered_from: renderedFrom } : {}),
      routes: [
        ...routes,
        OPENAPI_ROUTE,
        ...errors.map((e) => ({
          path: '',
          query: {},
          file: e.file,
          status: e.status,
          cache_control: NO_STORE,
          route_id: null,
        })),
      ],
      files: await compressAndDescribe(
        staging,
        new Set(['_headers', '_redirects']),
        copies,
        new Map([...taken, ...carriedBulkFiles(existing, options.outDir, staging)]),
        endpointEtags,
      ),
      bulk,
      ...(options.siteOnly ? { site_only: true } : {}),
    };
    // After compressAndDescribe: the nginx configuration is not a file the API serves.
    writeBody(staging, 'nginx.conf', renderNginxConf({ manifest, errors, root: resolve(options.outDir) }));
    writeBody(staging, BUILD_MANIFEST_FILE, `${JSON.stringify(manifest, null, 1)}\n`);
    swapInto(staging, options.outDir);
    copies.trim();
    return {
      ...summarise(manifest, 'built', started),
      written: manifest.files.length - taken.size,
      reused: taken.size,
      full_because: plan.why,
    };
  } finally {
    setBuildBridge(null);
    // A failed build still lets the export end before its folder goes.
    await bulkFiles?.catch(() => undefined);
    rmSync(staging, { recursive: true, force: true });
    rmSync(bulkStaging, { recursive: true, force: true });
    await db.close();
  }
}
