import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { listStaticRequests } from '../../../src/api/v1/static-requests.ts';
import type { BuildManifest } from '../../../src/build/build-manifest.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { createSampleSnapshot, type SnapshotFixture } from '../../helpers/snapshot-fixture.ts';

/** A public request of the snapshot: the path and its (at most one) filter. */
export interface PublicRequest {
  path: string;
  query: Record<string, string>;
}

/** The sample snapshot (plus the licensed test series), ready to be served, with its public requests. */
export interface ServedSample extends SnapshotFixture {
  /** Every public request the static build would write a file for (rendered live when not built). */
  publicRequests: PublicRequest[];
  /** Files of dist/ (without the leading slash); empty when not built. */
  builtFiles: string[];
  /** The fixture's dist/: it exists only when built (else the server renders public requests live). */
  distDir: string;
}

/**
 * Publishes the sample data with the test-only licensed series (`LICENSED_SERIES_KEY`, from
 * test/fixtures/licensed/: it must never be served anonymously) and lists the public requests;
 * with `build`, also runs `mmds build`.
 *
 * The fast suite does not build: Astro puts its prerender chunks in `<cwd>/.astro/` when the
 * output directory is outside the working directory (as temp dirs are), so two builds of
 * parallel test files collide there. The long suite builds once.
 */
export async function createServedSample(options: { build?: boolean } = {}): Promise<ServedSample> {
  const fixture = await createSampleSnapshot({ licensed: true });
  try {
    const db = await fixture.open();
    let publicRequests: PublicRequest[];
    try {
      publicRequests = (await listStaticRequests(db)).map((request) => ({
        path: request.route.path.replace(':slug', request.slug ?? ''),
        query: request.query as Record<string, string>,
      }));
    } finally {
      await db.close();
    }
    // Always passed to the server, so that it never picks up a dist/ of the working directory.
    const distDir = fixture.env.MMDS_DIST_DIR!;
    if (!options.build) return { ...fixture, publicRequests, builtFiles: [], distDir };
    const built = await runMmds(['build'], fixture.env);
    if (built.code !== 0) throw new Error(`mmds build failed (${built.code}): ${built.stderr}`);
    const manifest = JSON.parse(readFileSync(join(distDir, 'build-manifest.json'), 'utf8')) as BuildManifest;
    return { ...fixture, publicRequests, builtFiles: manifest.files.map((file) => file.file), distDir };
  } catch (error) {
    fixture.remove();
    throw error;
  }
}

/** A key issued through `mmds keys issue`: its plaintext (shown once) and its id. */
export interface IssuedTestKey {
  plaintext: string;
  id: string;
}

/** Options of `issueTestKey`, as the CLI flags take them. */
export interface IssueTestKeyOptions {
  scopes: string;
  rateLimit?: number;
  expires?: string;
  org?: string;
  /** The clock of the CLI run (default: the fixtures' fixed clock). */
  now?: () => Date;
}

/** Issues a key with `mmds --json keys issue` in the environment's storage. */
export async function issueTestKey(
  env: Record<string, string>,
  options: IssueTestKeyOptions,
): Promise<IssuedTestKey> {
  const args = ['--json', 'keys', 'issue', '--org', options.org ?? 'reliability', '--scopes', options.scopes];
  if (options.rateLimit !== undefined) args.push('--rate-limit', String(options.rateLimit));
  if (options.expires !== undefined) args.push('--expires', options.expires);
  const run = await runMmds(args, env, options.now);
  if (run.code !== 0) throw new Error(`mmds keys issue failed (${run.code}): ${run.stderr}`);
  const issued = JSON.parse(run.stdout) as { key: string; id: string };
  return { plaintext: issued.key, id: issued.id };
}

/** Runs an `mmds keys` subcommand (revoke, rotate) and fails loudly if it fails. */
export async function runKeysCommand(
  env: Record<string, string>,
  args: readonly string[],
  now?: () => Date,
): Promise<string> {
  const run = await runMmds(['--json', 'keys', ...args], env, now);
  if (run.code !== 0) throw new Error(`mmds keys ${args.join(' ')} failed (${run.code}): ${run.stderr}`);
  return run.stdout;
}
