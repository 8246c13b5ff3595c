import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { REPO_ROOT } from './paths.ts';

/**
 * What the shared sample build (shared-sample-build.ts) is keyed on, without importing anything of
 * src/: vitest.config.ts digests the inputs here when a run starts.
 */

/**
 * The environment variable carrying the inputs' digest from the run's start to its workers (not
 * MMDS_*: mmds warns of every MMDS_ variable it does not know, and the tests spawn it).
 */
export const RUN_INPUTS_VARIABLE = 'SHARED_SAMPLE_INPUTS_DIGEST';

/** Everything under the repository the sample snapshot and its build are made from. */
const INPUTS = [
  'src',
  'public',
  'data/sample',
  'data/catalog',
  'data/calendars',
  'docs',
  'test/fixtures',
  'test/helpers/shared-sample-build.ts',
  'test/helpers/sample-inputs.ts',
  'test/helpers/fixture-cache.ts',
  'test/helpers/snapshot-fixture.ts',
  'test/helpers/run-cli.ts',
  'astro.config.mjs',
  'package-lock.json',
  'package.json',
  'tsconfig.json',
];

function listInputs(path: string, out: string[]): void {
  if (!existsSync(path)) return;
  if (statSync(path).isDirectory()) {
    for (const name of readdirSync(path).sort()) listInputs(join(path, name), out);
  } else out.push(path);
}

/** The files the shared build is keyed on, relative to the repository root, in a stable order. */
export function listSharedSampleInputs(): string[] {
  const files: string[] = [];
  for (const input of INPUTS) listInputs(join(REPO_ROOT, input), files);
  return files.map((file) => relative(REPO_ROOT, file));
}

/** A digest of the content of every input file. */
export function digestInputs(): string {
  const hash = createHash('sha256');
  for (const file of listSharedSampleInputs()) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(join(REPO_ROOT, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}
