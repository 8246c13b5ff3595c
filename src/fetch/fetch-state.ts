import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { writeFileAtomic } from '../lib/durable-fs.ts';
import type { FetchedFile, FetchState, FetchStateEntry } from './types.ts';

/** The file name of the fetch state inside the data directory. */
export const FETCH_STATE_FILE = 'fetch-state.json';

interface StateDocument {
  version: 1;
  /** Keyed by URL as requested (not after redirects), so a mirror keeps its own validators. */
  entries: Record<string, FetchStateEntry>;
}

function readDocument(file: string): StateDocument {
  if (!existsSync(file)) return { version: 1, entries: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(
      `${file}: not valid JSON (${(error as Error).message}); delete it to download every file afresh`,
      { cause: error },
    );
  }
  const document = parsed as Partial<StateDocument> | null;
  if (document === null || typeof document !== 'object' || typeof document.entries !== 'object') {
    throw new Error(`${file}: not a fetch state file; delete it to download every file afresh`);
  }
  return { version: 1, entries: { ...document.entries } };
}

/**
 * Opens the conditional-GET state kept in `file` (normally `<data dir>/fetch-state.json`).
 * Validators are recorded only through `commit`, after the files were ingested, so a failed
 * ingest never makes the next fetch skip the file.
 */
export function openFetchState(file: string): FetchState {
  const document = readDocument(file);
  return {
    get(url) {
      return document.entries[url] ?? null;
    },
    commit(files: readonly FetchedFile[]) {
      if (files.length === 0) return;
      // Re-read: sources fetched side by side (mmds update) each hold a state of this file, and
      // one's commit must not drop the entries another committed since this state was opened.
      const entries = { ...readDocument(file).entries };
      for (const fetched of files) {
        entries[fetched.url] = {
          etag: fetched.etag,
          last_modified: fetched.last_modified,
          sha256: fetched.sha256,
          retrieved_at: fetched.retrieved_at,
        };
      }
      const sorted = Object.fromEntries(Object.entries(entries).sort(([a], [b]) => a.localeCompare(b)));
      mkdirSync(dirname(file), { recursive: true });
      writeFileAtomic(file, `${JSON.stringify({ version: 1, entries: sorted }, null, 2)}\n`);
      // Only after the durable write: a failed write leaves the in-memory state as on disk.
      document.entries = sorted;
    },
  };
}

/** A state that remembers nothing (one-off downloads, or `--force`). */
export function createEmptyFetchState(): FetchState {
  return { get: () => null, commit: () => {} };
}
