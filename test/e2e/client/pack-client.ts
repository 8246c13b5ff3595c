import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../../helpers/paths.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';

/**
 * The TypeScript client as a user gets it: `npm pack` of clients/typescript (its prepack script
 * builds dist/ with tsc), and a project outside the checkout that installs the tarball. The pack
 * runs in a copy of the package (the checkout stays untouched) and is kept in
 * node_modules/.cache/mmds-client-package/<digest of the package's files and tsc's version>/, so
 * a run after no change to the client only installs. The runtime dependencies (openapi-fetch and
 * its helpers) are packed from the project's node_modules, so the install runs `--offline`.
 */

const run = promisify(execFile);
export const CLIENT_DIR = join(REPO_ROOT, 'clients/typescript');
const CACHE = join(REPO_ROOT, 'node_modules/.cache/mmds-client-package');
/** The dependencies of the packed client, and theirs, as the project has installed them. */
const RUNTIME_DEPENDENCIES = ['openapi-fetch', 'openapi-typescript-helpers'];
/** npm and the tsc of its prepack script: the project's tools first on PATH. */
const TOOL_PATH = `${join(REPO_ROOT, 'node_modules/.bin')}${delimiter}${process.env.PATH ?? ''}`;

/** The packed client and the tarballs of its dependencies. */
export interface ClientPack {
  /** The client's tarball (`mmds-client-<version>.tgz`). */
  client: string;
  dependencies: string[];
  /** Whether this call packed it (false: from the cache). */
  packed: boolean;
}

/** The files `npm pack` reads, relative to clients/typescript (no dist/, no node_modules/). */
function packageFiles(): string[] {
  const sources = readdirSync(join(CLIENT_DIR, 'src')).map((name) => `src/${name}`);
  return ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'README.md', ...sources.sort()];
}

function cacheKey(): string {
  const hash = createHash('sha256');
  const tsc = JSON.parse(readFileSync(join(REPO_ROOT, 'node_modules/typescript/package.json'), 'utf8'));
  hash.update(`typescript ${tsc.version}\n`);
  for (const file of packageFiles()) {
    hash.update(`${file}\n`);
    hash.update(readFileSync(join(CLIENT_DIR, file)));
  }
  for (const name of RUNTIME_DEPENDENCIES) {
    hash.update(readFileSync(join(REPO_ROOT, 'node_modules', name, 'package.json')));
  }
  return hash.digest('hex').slice(0, 16);
}

/** Packs the client (or takes the cached pack of the same files) and its dependencies. */
export async function packClient(): Promise<ClientPack> {
  const dir = join(CACHE, cacheKey());
  const found = () => (existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith('.tgz')) : []);
  const done = found();
  if (done.length === RUNTIME_DEPENDENCIES.length + 1) return listPack(dir, done, false);

  const temp = createTempDir('mmds-client-pack-');
  try {
    const copy = join(temp.dir, 'package');
    for (const file of packageFiles()) cpSync(join(CLIENT_DIR, file), join(copy, file), { recursive: true });
    // tsc resolves openapi-fetch's types from the project's node_modules, as in the checkout.
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
    const out = join(temp.dir, 'out');
    mkdirSync(out);
    const env = { ...process.env, PATH: TOOL_PATH };
    await run('npm', ['pack', '--pack-destination', out], { cwd: copy, env });
    for (const name of RUNTIME_DEPENDENCIES) {
      const from = join(REPO_ROOT, 'node_modules', name);
      await run('npm', ['pack', '--ignore-scripts', '--pack-destination', out, from], { cwd: out, env });
    }
    mkdirSync(CACHE, { recursive: true });
    rmSync(dir, { recursive: true, force: true });
    try {
      renameSync(out, dir);
    } catch (error) {
      // Another run packed the same files meanwhile: its pack is as good as this one.
      if (found().length !== RUNTIME_DEPENDENCIES.length + 1) throw error;
    }
  } finally {
    temp.remove();
  }
  return listPack(dir, found(), true);
}

function listPack(dir: string, tarballs: string[], packed: boolean): ClientPack {
  const client = tarballs.find((name) => name.startsWith('mmds-client-'));
  if (!client) throw new Error(`no mmds-client tarball in ${dir}`);
  return {
    client: join(dir, client),
    dependencies: tarballs.filter((name) => name !== client).map((name) => join(dir, name)),
    packed,
  };
}

/** A new project in `dir` (outside the checkout) that installs the tarballs, offline. */
export async function installInto(dir: string, pack: ClientPack): Promise<void> {
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: 'mmds-client-consumer', private: true, type: 'module' }, null, 2)}\n`,
  );
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund', pack.client, ...pack.dependencies], {
    cwd: dir,
    env: { ...process.env, PATH: TOOL_PATH },
  });
}
