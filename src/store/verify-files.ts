import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DERIVED_TABLES } from './derived-tables.ts';
import { hashFiles } from './hash-files.ts';
import { manifestFiles, type SnapshotFile, type SnapshotManifest } from './manifest.ts';
import type { Problem } from './problem.ts';
import { TABLES } from './tables.ts';

/** Options of verifySnapshotFiles. */
export interface VerifyFilesOptions {
  /**
   * Files a publish hard-linked from the parent snapshot (the same inode, checked when the
   * parent was published): their size is checked, their bytes are not hashed again. `mmds
   * verify` and the server hash every file.
   */
  linked?: ReadonlySet<string>;
  /** Digests this process computed before, reused for the same file (see VerifiedFiles). */
  verified?: VerifiedFiles;
}

/**
 * Digests of files a long-running process (the server) already hashed, by the file's identity:
 * device, inode, size and modification time. Snapshots share unchanged partitions as hard links,
 * so a server switching to a new snapshot hashes only the partitions that publish wrote. A file
 * rewritten in place gets a new modification time and is hashed again; `mmds verify` always
 * hashes everything.
 */
export class VerifiedFiles {
  readonly #digests = new Map<string, string>();

  static #identity(file: string): string {
    const stats = statSync(file, { bigint: true });
    return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}`;
  }

  get(file: string): string | undefined {
    return this.#digests.get(VerifiedFiles.#identity(file));
  }

  set(file: string, sha256: string): void {
    if (this.#digests.size >= 100_000) this.#digests.clear();
    this.#digests.set(VerifiedFiles.#identity(file), sha256);
  }
}

/** Checks that every file of the manifest is there with its recorded size and checksum. */
export async function verifySnapshotFiles(
  dir: string,
  manifest: SnapshotManifest,
  options: VerifyFilesOptions = {},
): Promise<Problem[]> {
  const problems: Problem[] = [];
  const error = (message: string) => problems.push({ severity: 'error', check: 'checksum', message });
  for (const table of TABLES) {
    // A table newer than the snapshot's schema is not missing: that snapshot predates it.
    if (manifest.schema_version < (table.since ?? 0)) continue;
    if (!manifest.tables[table.name]) error(`${manifest.id}: manifest lists no file for table ${table.name}`);
  }
  if (manifest.schema_version >= 3) {
    for (const name of DERIVED_TABLES) {
      if (!manifest.derived?.[name]) error(`${manifest.id}: manifest lists no derived table ${name}`);
    }
  }
  const toHash: Array<{ entry: SnapshotFile; file: string }> = [];
  for (const entry of manifestFiles(manifest)) {
    const file = join(dir, entry.file);
    if (!existsSync(file)) error(`${manifest.id}/${entry.file}: missing`);
    else if (statSync(file).size !== entry.bytes)
      error(`${manifest.id}/${entry.file}: size differs from the manifest`);
    else if (!options.linked?.has(entry.file)) {
      const known = options.verified?.get(file);
      if (known === undefined) toHash.push({ entry, file });
      else if (known !== entry.sha256)
        error(`${manifest.id}/${entry.file}: SHA-256 differs from the manifest`);
    }
  }
  const digests = await hashFiles(toHash.map((item) => item.file));
  toHash.forEach(({ entry, file }, index) => {
    options.verified?.set(file, digests[index]!);
    if (digests[index] !== entry.sha256)
      error(`${manifest.id}/${entry.file}: SHA-256 differs from the manifest`);
  });
  return problems;
}
