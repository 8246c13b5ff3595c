import { createHash } from 'node:crypto';
import { SNAPSHOT_ID_PATTERN } from '../layout.ts';
import type { ObjectStore } from './object-store.ts';

/**
 * The layout of a snapshot store in a bucket, under its prefix:
 *
 *   objects/<sha256>          a snapshot file, named by the SHA-256 of its bytes (never replaced)
 *   manifests/<sha256>.json   a snapshot's manifest.json, named by the SHA-256 of its bytes
 *   log/<seq>.json            the commit log: entry `seq` names the snapshot current from it on
 *   CURRENT                   "<seq> <snapshot id>": a hint to find the log's end, never trusted
 *
 * Everything but CURRENT is written once. A snapshot is committed when its log entry exists: the
 * entry is created with `If-None-Match: *`, so of two publishers taking one sequence number
 * exactly one creates it; the loser's objects are harmless (unreferenced, or shared by content).
 */
export const objectKey = (sha256: string) => `objects/${sha256}`;
export const manifestKey = (sha256: string) => `manifests/${sha256}.json`;
export const logKey = (seq: number) => `log/${String(seq).padStart(SEQ_DIGITS, '0')}.json`;
export const CURRENT_KEY = 'CURRENT';

/** Zero-padded so that the keys list in commit order. */
const SEQ_DIGITS = 12;
const LOG_KEY_PATTERN = /^log\/(\d{12})\.json$/;

/** One commit: `log/<seq>.json`. */
export interface LogEntry {
  seq: number;
  snapshot_id: string;
  /** The snapshot of the entry before (null for the first). */
  previous: string | null;
  /** The key of the manifest, and the SHA-256 its bytes must have. */
  manifest: string;
  manifest_sha256: string;
  /** The snapshot's files: how many and their total bytes. */
  files: number;
  bytes: number;
  committed_at: string;
}

export const sha256Of = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/**
 * The newest log entry, or null for an empty log. CURRENT, when it is readable, says where to
 * start listing; the log itself decides (a CURRENT behind the log, or garbled, only costs a
 * longer listing).
 */
export async function readLogHead(store: ObjectStore): Promise<LogEntry | null> {
  const hint = await readCurrentHint(store);
  let keys = await store.list('log/', hint === null ? undefined : logKey(hint - 1));
  if (hint !== null && keys.length === 0) keys = await store.list('log/');
  const seqs = logSeqs(keys);
  if (seqs.length === 0) return null;
  return readLogEntry(store, Math.max(...seqs));
}

/** Reads and checks one log entry; a malformed one is an error (the log is append-only). */
export async function readLogEntry(store: ObjectStore, seq: number): Promise<LogEntry> {
  const bytes = await store.get(logKey(seq));
  if (bytes === null) throw new Error(`${store.url}/${logKey(seq)} is missing`);
  let entry: LogEntry;
  try {
    entry = JSON.parse(bytes.toString('utf8')) as LogEntry;
  } catch {
    throw new Error(`${store.url}/${logKey(seq)} is not JSON`);
  }
  if (
    entry.seq !== seq ||
    !SNAPSHOT_ID_PATTERN.test(entry.snapshot_id ?? '') ||
    !/^[0-9a-f]{64}$/.test(entry.manifest_sha256 ?? '')
  )
    throw new Error(`${store.url}/${logKey(seq)} is not a log entry of sequence ${seq}`);
  return entry;
}

async function readCurrentHint(store: ObjectStore): Promise<number | null> {
  const bytes = await store.get(CURRENT_KEY);
  const match = bytes === null ? null : /^(\d{1,12}) /.exec(bytes.toString('utf8'));
  const seq = match ? Number(match[1]) : 0;
  return seq >= 1 ? seq : null;
}

/** Up to `limit` log entries after entry `seq`, oldest first. */
export async function readLogEntriesAfter(
  store: ObjectStore,
  seq: number,
  limit: number,
): Promise<LogEntry[]> {
  const keys = await store.list('log/', logKey(seq));
  const seqs = logSeqs(keys)
    .filter((n) => n > seq)
    .sort((a, b) => a - b)
    .slice(0, limit);
  return Promise.all(seqs.map((n) => readLogEntry(store, n)));
}

/** The sequence numbers of listed log keys (other keys are ignored). */
function logSeqs(keys: readonly string[]): number[] {
  return keys.flatMap((key) => {
    const match = LOG_KEY_PATTERN.exec(key);
    return match ? [Number(match[1])] : [];
  });
}
