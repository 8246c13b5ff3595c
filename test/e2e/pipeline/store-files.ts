import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Describes everything under a directory: the SHA-256 of every file and a `dir` marker for every
 * directory, by path relative to the root. Two equal results mean byte-for-byte the same tree.
 */
export function hashTree(
  root: string,
  include: (path: string) => boolean = () => true,
): Record<string, string> {
  const tree: Record<string, string> = {};
  if (!existsSync(root)) return tree;
  const entries = readdirSync(root, { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    const path = join(entry.parentPath, entry.name);
    const key = relative(root, path);
    if (!include(key)) continue;
    if (entry.isDirectory()) tree[key] = 'dir';
    else tree[key] = createHash('sha256').update(readFileSync(path)).digest('hex');
  }
  return Object.fromEntries(Object.entries(tree).sort(([a], [b]) => a.localeCompare(b)));
}

/** Splits one line of a CSV file with double-quoted fields (no newlines inside quotes). */
export function splitCsvLine(line: string): string[] {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const char = line[i];
    if (quoted) {
      if (char === '"' && line[i + 1] === '"') {
        field += '"';
        i++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      fields.push(field);
      field = '';
    } else field += char;
  }
  fields.push(field);
  return fields;
}

/** The non-empty lines of a text file, without line terminators. */
export function readLines(file: string): string[] {
  return readFileSync(file, 'utf8')
    .split(/\r?\n/)
    .filter((line) => line !== '');
}

/**
 * The lines of a CLI run's stderr that are messages, not progress: a run whose stderr is not a
 * terminal also logs each phase once as a line ending in "…"; those are left out.
 */
export function readStderrMessages(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line !== '' && !line.endsWith('…'));
}
