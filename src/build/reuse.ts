import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { keyPrefix, type RequestInputs } from '../api/v1/static-requests.ts';
import { openDuckDb, quotedString, readRows, withConnection } from '../db/duckdb.ts';
import { BULK_DATASETS, FACT_BULK_DATASETS } from '../query/bulk-export.ts';
import { type StoreLayout, snapshotDir } from '../store/layout.ts';
import { readManifest, type SnapshotManifest } from '../store/manifest.ts';
import type { BuildManifest, BuiltFile } from './build-manifest.ts';
import { isBulkFile } from './bulk-files.ts';
import { linkOrCopy } from './dist-tree.ts';

/**
 * A build on top of an earlier one (issue 23: a release reaches the public tier in seconds): a
 * file of the earlier dist/ is taken as it is, with its ETag and compressed copies, when what
 * its body is computed from (StaticRequest.inputs) is the same in the new snapshot. The body
 * keeps `meta.snapshot` and `generated_at` of the build that rendered it: CONTRACT section 1
 * defines them as the snapshot the payload was computed from and when it was rendered, which
 * stays true, and an unchanged ETag lets caches keep it (docs/operations.md, "Incremental builds").
 *
 * Only the facts move between two snapshots here: a change of any reference table, of the set
 * of series a changed source holds (a catalogue filter could gain a member), of the code that
 * renders (the inputs digest) or of the pipeline version renders everything again.
 */

/** What the project renders with: a build of other sources or pages never reuses bodies. */
const RENDER_INPUTS = ['src', 'public', 'docs', 'data/calendars', 'astro.config.mjs', 'package.json'];

/** A digest of the files the build renders with (the code, the pages, the docs, the calendars). */
export function digestRenderInputs(root: string): string {
  const hash = createHash('sha256');
  const visit = (path: string, name: string) => {
    if (!existsSync(path)) return;
    if (statSync(path).isDirectory()) {
      for (const entry of readdirSync(path).sort()) visit(join(path, entry), `${name}/${entry}`);
      return;
    }
    hash.update(`${name}\0`).update(readFileSync(path)).update('\0');
  };
  for (const input of RENDER_INPUTS) visit(join(root, input), input);
  return hash.digest('hex');
}

/** The earlier build and what changed since each snapshot its bodies were rendered from. */
export interface ReuseBase {
  dir: string;
  manifest: BuildManifest;
  files: ReadonlyMap<string, BuiltFile>;
  /** Per snapshot of the earlier bodies: what changed since, or null (nothing of it reusable). */
  changed: ReadonlyMap<string, Changes | null>;
}

/** What changed between a snapshot and the new one, where only facts did. */
interface Changes {
  /** The key prefixes (sources of fact partitions) whose facts differ. */
  prefixes: ReadonlySet<string>;
  /** The fact tables with a partition that differs. */
  tables: ReadonlySet<string>;
  /** The changed prefixes hold the same series (a catalogue filter's members are the same). */
  sameSeries: boolean;
}

/** Why a build renders everything, or the base it renders on top of. */
export type ReusePlan = { base: ReuseBase; why: null } | { base: null; why: string };

export interface PlanReuseOptions {
  layout: StoreLayout;
  snapshotId: string;
  previousDir: string;
  previous: BuildManifest | null;
  pipelineVersion: string;
  inputsDigest: string;
}

/** Decides whether the earlier build in `previousDir` can lend its files to the new one. */
export async function planReuse(options: PlanReuseOptions): Promise<ReusePlan> {
  const { previous } = options;
  if (previous === null) return { base: null, why: 'no earlier build' };
  if (previous.site_only) return { base: null, why: 'the earlier build was site-only' };
  if (previous.pipeline_version !== options.pipelineVersion)
    return { base: null, why: `the earlier build is of pipeline ${previous.pipeline_version}` };
  if (previous.inputs_digest !== options.inputsDigest)
    return { base: null, why: 'the code, pages or calendars changed since the earlier build' };
  const target = readManifest(options.layout, options.snapshotId);
  const changed = new Map<string, Changes | null>();
  for (const snapshot of new Set([previous.snapshot, ...Object.values(previous.rendered_from ?? {})]))
    changed.set(snapshot, await changedSince(options.layout, snapshot, target));
  if ([...changed.values()].every((set) => set === null))
    return {
      base: null,
      why: 'the reference lists changed, or the snapshots of the earlier build were pruned',
    };
  return {
    base: {
      dir: options.previousDir,
      manifest: previous,
      files: new Map(previous.files.map((file) => [file.file.slice(1), file])),
      changed,
    },
    why: null,
  };
}

/**
 * What changed between snapshot `from` and `target`, or null when bodies of `from` cannot be
 * kept at all: pruned (its bulk files, which pages link, are gone), another schema, or a
 * reference table changed.
 */
async function changedSince(
  layout: StoreLayout,
  from: string,
  target: SnapshotManifest,
): Promise<Changes | null> {
  if (from === target.id) return { prefixes: new Set(), tables: new Set(), sameSeries: true };
  if (!existsSync(join(snapshotDir(layout, from), 'manifest.json'))) return null;
  const old = readManifest(layout, from);
  if (old.schema_version !== target.schema_version) return null;
  const changed = new Set<string>();
  const tables = new Set<string>();
  for (const [name, table] of Object.entries(target.tables)) {
    const before = old.tables[name];
    if (!before) return null;
    const isFact = table.files.some((file) => file.source !== undefined);
    if (!isFact) {
      if (before.sha256 !== table.sha256 || before.loaded_at !== table.loaded_at) return null;
      continue;
    }
    const after = filesByPrefix(table.files);
    const earlier = filesByPrefix(before.files);
    for (const prefix of new Set([...after.keys(), ...earlier.keys()]))
      if (after.get(prefix) !== earlier.get(prefix)) {
        changed.add(prefix);
        tables.add(name);
      }
  }
  if (changed.size === 0) return { prefixes: changed, tables, sameSeries: true };
  if (!old.derived?.series_latest || !target.derived?.series_latest)
    return { prefixes: changed, tables, sameSeries: false };
  const series = (manifest: SnapshotManifest) =>
    readSeriesKeys(join(snapshotDir(layout, manifest.id), manifest.derived.series_latest!.file), changed);
  const [a, b] = await Promise.all([series(old), series(target)]);
  return { prefixes: changed, tables, sameSeries: a === b };
}

function filesByPrefix(files: SnapshotManifest['tables'][string]['files']): Map<string, string> {
  const byPrefix = new Map<string, string[]>();
  for (const file of files) {
    const list = byPrefix.get(file.source ?? '') ?? [];
    list.push(file.sha256);
    byPrefix.set(file.source ?? '', list);
  }
  return new Map([...byPrefix].map(([prefix, hashes]) => [prefix, hashes.sort().join(',')]));
}

/** The series keys of the changed prefixes in a snapshot's latest-value table, as one string. */
async function readSeriesKeys(file: string, prefixes: ReadonlySet<string>): Promise<string> {
  const instance = await openDuckDb({ threads: 1 });
  try {
    return await withConnection(instance, async (connection) => {
      const rows = await readRows<{ key: string }>(
        connection,
        `SELECT series_key AS key FROM read_parquet(${quotedString(file)})
          WHERE split_part(series_key, '.', 1) IN (${[...prefixes].map(quotedString).join(', ')})
          ORDER BY series_key`,
      );
      return rows.map((row) => row.key).join('\n');
    });
  } finally {
    instance.closeSync();
  }
}

/**
 * Whether the earlier build's `file` can stand for the new one: it exists, it was rendered from
 * a snapshot still held, and what it is computed from did not change since.
 */
export function canReuse(base: ReuseBase, file: string, inputs: RequestInputs): boolean {
  if (inputs === 'snapshot' || !base.files.has(file)) return false;
  const from = base.manifest.rendered_from?.[file] ?? base.manifest.snapshot;
  const changed = base.changed.get(from);
  if (!changed) return false;
  if (inputs === 'listed' && !changed.sameSeries) return false;
  const prefixes = inputs === 'listed' ? listedPrefixes(join(base.dir, file)) : inputs.partitions;
  return prefixes?.every((prefix) => !changed.prefixes.has(prefix)) === true;
}

/** The key prefixes of the series a catalogue body lists (`data[].key`), or null if unreadable. */
function listedPrefixes(path: string): string[] | null {
  try {
    const body = JSON.parse(readFileSync(path, 'utf8')) as { data?: Array<{ key?: unknown }> };
    if (!Array.isArray(body.data)) return null;
    const keys = body.data.map((item) => item.key);
    if (keys.some((key) => typeof key !== 'string')) return null;
    return [...new Set((keys as string[]).map(keyPrefix))];
  } catch {
    return null;
  }
}

/**
 * The bulk datasets (src/query/bulk-export.ts) whose rows cannot differ from those of the
 * earlier build's own snapshot: a fact table's dataset when none of its partitions changed, a
 * reference list's whenever the plan has a base (no reference table changed). The build links
 * their files instead of exporting them again; the bytes are the same (DuckDB writes them alike).
 */
export function unchangedBulkDatasets(
  base: ReuseBase | null,
): { snapshot: string; datasets: ReadonlySet<string> } | undefined {
  const changes = base?.changed.get(base.manifest.snapshot);
  if (!base || !changes) return undefined;
  const facts: readonly string[] = FACT_BULK_DATASETS;
  return {
    snapshot: base.manifest.snapshot,
    datasets: new Set(
      BULK_DATASETS.filter((dataset) => !facts.includes(dataset) || !changes.tables.has(dataset)),
    ),
  };
}

/** Puts the earlier build's file and its compressed copies into the new tree (linkOrCopy). */
export function takeFile(base: ReuseBase, file: string, staging: string): BuiltFile {
  const entry = base.files.get(file)!;
  for (const suffix of [
    '',
    ...(entry.gzip_bytes !== null ? ['.gz'] : []),
    ...(entry.br_bytes !== null ? ['.br'] : []),
  ]) {
    linkOrCopy(join(base.dir, `${file}${suffix}`), join(staging, `${file}${suffix}`));
  }
  return entry;
}

/**
 * Which snapshot each taken file was rendered from, where that is not the new one: the earlier
 * build's own record, else its snapshot. The next build checks what changed since each of them.
 */
export function renderedFromOf(
  previous: BuildManifest,
  taken: ReadonlySet<string>,
  snapshot: string,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const file of [...taken].sort()) {
    const from = previous.rendered_from?.[file] ?? previous.snapshot;
    if (from !== snapshot) out[file] = from;
  }
  return out;
}

/**
 * The bulk files carried over from the earlier dist/ (hard links, src/build/bulk-files.ts) with
 * the earlier build's description: the same bytes need not be read and hashed again.
 */
export function carriedBulkFiles(
  previous: BuildManifest | null,
  previousDir: string,
  staging: string,
): Map<string, BuiltFile> {
  const carried = new Map<string, BuiltFile>();
  for (const entry of previous?.files ?? []) {
    const file = entry.file.slice(1);
    if (!isBulkFile(file)) continue;
    try {
      const before = statSync(join(previousDir, file));
      const after = statSync(join(staging, file));
      if (before.ino === after.ino && before.dev === after.dev && before.size === entry.bytes)
        carried.set(file, entry);
    } catch {
      // Not carried over (a pruned snapshot's files): nothing to take.
    }
  }
  return carried;
}
