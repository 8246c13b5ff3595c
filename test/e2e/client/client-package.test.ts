import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { parseTarGzip } from 'nanotar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../helpers/paths.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import { type SharedSampleFixture, useSharedSample } from '../../helpers/shared-sample-build.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';
import { type ClientPack, installInto, packClient } from './pack-client.ts';

const run = promisify(execFile);
// The server checks key expiry against the real clock, so keys are issued with it too.
const REAL_CLOCK = () => new Date();
const PAYROLLS = 'bls.CES0000000001';
const AS_OF = '2026-01-01T00:00:00Z';
/** The machine's Node (20 here), which cannot run TypeScript: the package must be JavaScript. */
const SYSTEM_NODE = '/usr/bin/node';
const systemNodeVersion = existsSync(SYSTEM_NODE)
  ? spawnSync(SYSTEM_NODE, ['--version'], { encoding: 'utf8' }).stdout.trim()
  : null;
if (!systemNodeVersion) console.warn(`${SYSTEM_NODE} not found: the packed client is run on Node 24 only`);
/** The project's Node 24 (the `node` devDependency). */
const PROJECT_NODE = join(REPO_ROOT, 'node_modules/.bin/node');
const TSC = join(REPO_ROOT, 'node_modules/typescript/bin/tsc');

/** A plain JavaScript consumer: what a user writes after `npm install @mmds/client`. */
const CONSUMER_JS = `import { createClient, MmdsApiError } from '@mmds/client';
const { MMDS_URL: baseUrl, MMDS_KEY: apiKey } = process.env;
const query = { series: '${PAYROLLS}', as_of: '${AS_OF}' };
const status = await createClient({ baseUrl }).get('/api/v1/status');
const mmds = createClient({ baseUrl, apiKey });
const page = await mmds.get('/api/v1/observations', { params: { query: { ...query, limit: 5 } } });
let rows = 0;
for await (const _row of mmds.paginate('/api/v1/observations', { params: { query: { ...query, limit: 400 } } })) rows++;
let refused = null;
try {
  await createClient({ baseUrl }).get('/api/v1/observations', { params: { query } });
} catch (error) {
  refused = { mmds: error instanceof MmdsApiError, status: error.status, code: error.code, request_id: error.request_id };
}
console.log(JSON.stringify({ node: process.version, snapshot: status.meta.snapshot, page: page.data, rows, refused }));
`;

/** docs/clients/typescript.md: its first script and the output it shows on the sample. */
const DOC = readFileSync(join(REPO_ROOT, 'docs/clients/typescript.md'), 'utf8');
const DOC_SCRIPT = /```js\n(\/\/ first\.mjs[\s\S]*?)```/.exec(DOC)?.[1];
const DOC_OUTPUT = /On the bundled sample data it prints:\n\n```\n([\s\S]*?)```/.exec(DOC)?.[1];

/** A TypeScript consumer: the types must be there (each @ts-expect-error must meet an error). */
const CONSUMER_TS = `import { createClient, isTransformedView, MmdsApiError, type PageRow, type ReleaseEvent } from '@mmds/client';
import type { components } from '@mmds/client/schema';

const mmds = createClient({ baseUrl: 'http://127.0.0.1:4321', apiKey: 'mmds_x' });

export async function main(): Promise<string[]> {
  const status = await mmds.get('/api/v1/status');
  const snapshot: string = status.meta.snapshot;
  const body = await mmds.get('/api/v1/macro/{slug}', { params: { path: { slug: 'cpi' }, query: { units: 'pc1' } } });
  const level: number | null | undefined = isTransformedView(body) ? body.data[0]?.level : null;
  const row: PageRow<'/api/v1/observations'> | undefined = undefined;
  const event: ReleaseEvent | undefined = undefined;
  const error: components['schemas']['Error']['error']['code'] = 'rate_limited';
  // @ts-expect-error a misspelt query parameter
  await mmds.get('/api/v1/fx/ecb', { params: { query: { currenc: 'USD' } } });
  // @ts-expect-error a path the API does not have
  await mmds.get('/api/v1/nothing-here');
  // @ts-expect-error a required path parameter left out
  await mmds.get('/api/v1/macro/{slug}');
  // @ts-expect-error the snapshot id is a string
  const wrong: number = status.meta.snapshot;
  return [snapshot, String(level), String(row), String(event), error, String(wrong), MmdsApiError.name];
}
`;

const tsconfig = (module: string, moduleResolution: string, file: string, skipLibCheck: boolean) =>
  JSON.stringify({
    compilerOptions: {
      target: 'ES2022',
      module,
      moduleResolution,
      lib: ['ES2022', 'DOM'],
      types: [],
      strict: true,
      noEmit: true,
      skipLibCheck,
    },
    files: [file],
  });

describe('the TypeScript client as a package: npm pack, npm install in another project, import', () => {
  let pack: ClientPack;
  const project = createTempDir('mmds-client-consumer-');
  let fixture: SharedSampleFixture;
  let server: TestServer;
  let key: string;

  beforeAll(async () => {
    [pack, fixture] = await Promise.all([packClient(), useSharedSample()]);
    await installInto(project.dir, pack);
    writeFileSync(join(project.dir, 'consumer.mjs'), CONSUMER_JS);
    writeFileSync(join(project.dir, 'consumer.ts'), CONSUMER_TS);
    writeFileSync(join(project.dir, 'first.mjs'), DOC_SCRIPT ?? '');
    server = await startTestServer({ dataDir: fixture.dataDir, distDir: fixture.distDir });
    const issued = await runMmds(
      ['--json', 'keys', 'issue', '--org', 'Package test', '--scopes', 'observations:read'],
      fixture.env,
      REAL_CLOCK,
    );
    expect(issued.code, issued.stderr).toBe(0);
    key = (JSON.parse(issued.stdout) as { key: string }).key;
  });

  afterAll(async () => {
    await server?.close();
    fixture?.remove();
    project.remove();
  });

  it('packs JavaScript and declarations, with exports and types, and no TypeScript source', async () => {
    const files = (await parseTarGzip(readFileSync(pack.client))).map((entry) => entry.name).sort();
    expect(files).toEqual([
      'package/README.md',
      'package/dist/index.d.ts',
      'package/dist/index.js',
      'package/dist/schema.d.ts',
      'package/dist/schema.js',
      'package/package.json',
    ]);
    const installed = JSON.parse(
      readFileSync(join(project.dir, 'node_modules/@mmds/client/package.json'), 'utf8'),
    );
    expect(installed.type).toBe('module');
    expect(installed.types).toBe('./dist/index.d.ts');
    expect(installed.exports['.']).toMatchObject({ types: './dist/index.d.ts', import: './dist/index.js' });
    expect(installed.engines.node).toBe('>=20');
    // The declarations say what the generated schema says (not an `any`).
    const declarations = readFileSync(join(project.dir, 'node_modules/@mmds/client/dist/index.d.ts'), 'utf8');
    expect(declarations).toContain('export declare function createClient(');
  });

  const callWith = async (node: string) => {
    const { stdout } = await run(node, ['consumer.mjs'], {
      cwd: project.dir,
      env: { PATH: process.env.PATH ?? '', MMDS_URL: server.url, MMDS_KEY: key },
    });
    return JSON.parse(stdout) as {
      node: string;
      snapshot: string;
      page: unknown[];
      rows: number;
      refused: { mmds: boolean; status: number; code: string; request_id: string } | null;
    };
  };

  const expectSameAnswers = async (answer: Awaited<ReturnType<typeof callWith>>) => {
    expect(answer.snapshot).toBe(fixture.snapshotId);
    const headers = { Authorization: `Bearer ${key}` };
    const base = `${server.url}/api/v1/observations?series=${PAYROLLS}&as_of=${AS_OF}`;
    const page = (await (await fetch(`${base}&limit=5`, { headers })).json()) as { data: unknown[] };
    expect(answer.page).toEqual(page.data);
    expect(answer.page).toHaveLength(5);
    const all = (await (await fetch(`${base}&limit=10000`, { headers })).json()) as { data: unknown[] };
    // Several pages of 400 followed through meta.next_cursor: every row known at AS_OF.
    expect(all.data.length).toBeGreaterThan(800);
    expect(answer.rows).toBe(all.data.length);
    expect(answer.refused).toMatchObject({ mmds: true, status: 401, code: 'unauthorized' });
    expect(answer.refused?.request_id).toMatch(/\S/);
  };

  it.skipIf(!systemNodeVersion)(
    `imports and calls the server on the machine's Node (${systemNodeVersion})`,
    async () => {
      const answer = await callWith(SYSTEM_NODE);
      expect(answer.node).toBe(systemNodeVersion);
      await expectSameAnswers(answer);
    },
  );

  it("imports and calls the server on the project's Node 24", async () => {
    const answer = await callWith(PROJECT_NODE);
    expect(answer.node).toMatch(/^v24\./);
    await expectSameAnswers(answer);
  });

  it('runs the first script of docs/clients/typescript.md as it says, on Node 20 and 24', async () => {
    expect(DOC_SCRIPT, 'the js block starting "// first.mjs"').toBeDefined();
    expect(DOC_OUTPUT, 'the output block after "On the bundled sample data it prints:"').toBeDefined();
    // What the script must print, from the API itself: the in-force rows known at 2026-01-01.
    const all = (await (
      await fetch(`${server.url}/api/v1/observations?series=${PAYROLLS}&as_of=${AS_OF}&limit=10000`, {
        headers: { Authorization: `Bearer ${key}` },
      })
    ).json()) as { data: { period: string; value: number; in_force: boolean }[] };
    const inForce = all.data.filter((row) => row.in_force);
    const last = inForce.at(-1)!;
    const expected = [
      `snapshot ${fixture.snapshotId}`,
      `${inForce.length} periods known on 2026-01-01, last ${last.period}: ${last.value}`,
      expect.stringMatching(/^without a key: 401 unauthorized \(request \S+\)$/),
    ];
    // The documented output is the sample's, but for the snapshot and request ids.
    const ids = (text: string) =>
      text.replace(/^snapshot \S+$/m, 'snapshot <id>').replace(/\(request \S+\)/, '(request <id>)');
    for (const node of [SYSTEM_NODE, PROJECT_NODE]) {
      if (node === SYSTEM_NODE && !systemNodeVersion) continue;
      const { stdout } = await run(node, ['first.mjs'], {
        cwd: project.dir,
        env: { PATH: process.env.PATH ?? '', MMDS_URL: server.url, MMDS_KEY: key },
      });
      expect(stdout.trimEnd().split('\n'), node).toEqual(expected);
      expect(ids(stdout), node).toBe(ids(DOC_OUTPUT!));
    }
  });

  it('type-checks a TypeScript consumer against the installed declarations (NodeNext and bundler)', async () => {
    const tsc = (config: string) =>
      run(PROJECT_NODE, [TSC, '-p', config], { cwd: project.dir }).then(
        ({ stdout }) => ({ stdout, failed: false }),
        (error: { stdout: string }) => ({ stdout: error.stdout, failed: true }),
      );
    // NodeNext checks the package's own declarations too (skipLibCheck off); bundler resolution
    // checks that the exports map leads a bundler's TypeScript to them.
    writeFileSync(
      join(project.dir, 'tsconfig.node.json'),
      tsconfig('NodeNext', 'NodeNext', 'consumer.ts', false),
    );
    writeFileSync(
      join(project.dir, 'tsconfig.bundler.json'),
      tsconfig('ESNext', 'Bundler', 'consumer.ts', true),
    );
    // A consumer that gets a type wrong fails: the checks can fail.
    writeFileSync(join(project.dir, 'broken.ts'), `${CONSUMER_TS}export const bad: number = 'text';\n`);
    writeFileSync(
      join(project.dir, 'tsconfig.broken.json'),
      tsconfig('NodeNext', 'NodeNext', 'broken.ts', true),
    );
    const [node, bundler, broken] = await Promise.all([
      tsc('tsconfig.node.json'),
      tsc('tsconfig.bundler.json'),
      tsc('tsconfig.broken.json'),
    ]);
    expect(node).toEqual({ stdout: '', failed: false });
    expect(bundler).toEqual({ stdout: '', failed: false });
    expect(broken.failed).toBe(true);
    expect(broken.stdout).toContain("error TS2322: Type 'string' is not assignable to type 'number'");
    expect(broken.stdout.match(/error TS/g)).toHaveLength(1);
  });

  it('bundles for the browser (esbuild, exports map) and the bundle runs', async () => {
    const bundle = await build({
      absWorkingDir: project.dir,
      entryPoints: ['consumer.mjs'],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      target: 'es2022',
      write: false,
      logLevel: 'silent',
    });
    const text = bundle.outputFiles[0]!.text;
    // Everything is in the bundle: the client and openapi-fetch, no import left to resolve.
    expect(text).toContain('MmdsApiError');
    expect(text).not.toMatch(/\bimport\b[^;]*['"](@mmds\/client|openapi-fetch)/);
    writeFileSync(join(project.dir, 'bundle.mjs'), text);
    const { stdout } = await run(PROJECT_NODE, ['bundle.mjs'], {
      cwd: project.dir,
      env: { PATH: process.env.PATH ?? '', MMDS_URL: server.url, MMDS_KEY: key },
    });
    await expectSameAnswers(JSON.parse(stdout));
  });
});
