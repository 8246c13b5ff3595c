import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLIC_VIEW } from '../../../src/api/v1/resource-etag.ts';
import {
  BUILD_MANIFEST_FILE,
  type BuildManifest,
  type StaticRoute,
} from '../../../src/build/build-manifest.ts';
import { parseRequest } from '../../../src/contract/parse-request.ts';
import { csvQuery, matchRoute } from '../../../src/contract/routes.ts';
import type { SnapshotDb } from '../../../src/query/snapshot-db.ts';
import { renderRepresentation } from '../../../src/server/represent-route.ts';
import { FIXTURE_NOW } from '../../helpers/run-cli.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import { type SharedSampleFixture, useSharedSample } from '../../helpers/shared-sample-build.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';

/**
 * Issue 33, item 3: a built endpoint file and the server's rendering of the same request carry
 * the same ETag (api/v1/resource-etag.ts), so a cache holding either gets a 304 from the other.
 * The server here has no dist/ at all: every answer is rendered from the snapshot.
 */
describe('the ETag of a built endpoint file is the one the server renders for its request', () => {
  let fixture: SharedSampleFixture;
  let manifest: BuildManifest;
  let db: SnapshotDb;
  let server: TestServer;
  let empty: ReturnType<typeof createTempDir>;
  /** The endpoint answers of the build: one request per route entry, with its file's ETag. */
  let answers: Array<{ target: string; route: StaticRoute; etag: string }>;

  beforeAll(async () => {
    fixture = await useSharedSample();
    manifest = JSON.parse(readFileSync(join(fixture.distDir, BUILD_MANIFEST_FILE), 'utf8')) as BuildManifest;
    db = await fixture.open();
    empty = createTempDir('mmds-no-dist-');
    server = await startTestServer({
      dataDir: fixture.dataDir,
      distDir: empty.dir,
      anonymousLimit: 100_000,
      now: () => FIXTURE_NOW,
    });
    const etags = new Map(manifest.files.map((file) => [file.file, file.etag]));
    answers = manifest.routes
      // The bulk listings are answered from dist/ alone (the server renders none of its own).
      .filter(
        (route) => route.status === 200 && route.route_id !== null && !route.route_id.startsWith('bulk'),
      )
      .map((route) => {
        const search = new URLSearchParams(route.query);
        return {
          target: `${route.path}${search.size ? `?${search}` : ''}`,
          route,
          etag: etags.get(`/${route.file}`)!,
        };
      });
  }, 300_000);

  afterAll(async () => {
    await server?.close();
    await db?.close();
    empty?.remove();
    fixture?.remove();
  });

  it('renders the same ETag in process for every route entry of the build, aliases included', async () => {
    expect(answers.length).toBeGreaterThan(1000);
    expect(new Set(answers.map((answer) => answer.route.route_id)).size).toBeGreaterThanOrEqual(15);
    const mismatches: string[] = [];
    for (const { target, etag } of answers) {
      const url = new URL(target, 'http://localhost');
      const matched = matchRoute(url.pathname)!;
      const search = matched.csv ? csvQuery(url.searchParams) : url.searchParams;
      const params = parseRequest(matched.route, matched.slug, search);
      const rendered = await renderRepresentation(
        matched.route,
        params,
        url,
        db,
        PUBLIC_VIEW,
        FIXTURE_NOW,
        null,
      );
      if (rendered.etag !== etag) mismatches.push(`${target}: built ${etag}, rendered ${rendered.etag}`);
    }
    expect(mismatches).toEqual([]);
  });

  it('answers a request over HTTP with the built file ETag, and 304 to it', async () => {
    // Each route once, and every 10th entry besides.
    const seen = new Set<string>();
    const sample = answers.filter(({ route }, index) => {
      const first = !seen.has(route.route_id!);
      seen.add(route.route_id!);
      return first || index % 10 === 0;
    });
    const mismatches: string[] = [];
    for (const { target, etag } of sample) {
      const plain = await fetch(`${server.url}${target}`);
      await plain.arrayBuffer();
      if (plain.status !== 200 || plain.headers.get('etag') !== etag)
        mismatches.push(`${target}: ${plain.status} ${plain.headers.get('etag')}, built ${etag}`);
      const conditional = await fetch(`${server.url}${target}`, { headers: { 'If-None-Match': etag } });
      await conditional.arrayBuffer();
      if (conditional.status !== 304) mismatches.push(`${target}: ${conditional.status} to If-None-Match`);
    }
    expect(sample.length).toBeGreaterThan(100);
    expect(mismatches).toEqual([]);
  });
});
