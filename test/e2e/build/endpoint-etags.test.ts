import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMmdsNginx } from '../../../scripts/bench/nginx.ts';
import type { ServerProcess } from '../../../scripts/bench/processes.ts';
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
import { HAVE_NGINX } from '../../helpers/test-prerequisites.ts';

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
  });

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

  it.skipIf(!HAVE_NGINX)(
    'is sent by nginx with the generated dist/nginx.conf, which answers 304 to it',
    async () => {
      const nginx: ServerProcess = await startMmdsNginx(
        join(empty.dir, 'nginx'),
        fixture.distDir,
        Number(new URL(server.url).port),
      );
      try {
        // The JSON files nginx answers itself (the live status and CSV go to mmds serve).
        const json = answers.filter(
          ({ route }) => route.file.endsWith('.json') && route.route_id !== 'status',
        );
        const sample = json.filter((_, index) => index % 25 === 0);
        expect(sample.length).toBeGreaterThan(40);
        const mismatches: string[] = [];
        for (const { target, etag } of sample) {
          for (const encoding of ['identity', 'gzip']) {
            const plain = await fetch(`${nginx.url}${target}`, { headers: { 'Accept-Encoding': encoding } });
            await plain.arrayBuffer();
            // nginx's own request id ($msec-$connection-$connection_requests): not passed to mmds serve.
            if (!/^\d+\.\d+-\d+-\d+$/.test(plain.headers.get('x-request-id') ?? ''))
              mismatches.push(`${target}: answered by mmds serve, not nginx`);
            if (plain.status !== 200 || plain.headers.get('etag') !== etag)
              mismatches.push(
                `${target} (${encoding}): ${plain.status} ${plain.headers.get('etag')}, built ${etag}`,
              );
          }
          const conditional = await fetch(`${nginx.url}${target}`, { headers: { 'If-None-Match': etag } });
          if (conditional.status !== 304 || conditional.headers.get('etag') !== etag)
            mismatches.push(
              `${target}: ${conditional.status} ${conditional.headers.get('etag')} to If-None-Match`,
            );
          const other = await fetch(`${nginx.url}${target}`, { headers: { 'If-None-Match': '"other"' } });
          await other.arrayBuffer();
          if (other.status !== 200) mismatches.push(`${target}: ${other.status} to another ETag`);
        }
        expect(mismatches).toEqual([]);
      } finally {
        await nginx.stop();
      }
    },
  );
});
