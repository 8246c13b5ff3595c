import { createHash } from 'node:crypto';
import { MmdsError } from '../../lib/errors.ts';
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

/** A log entry that cannot be read (garbage, or gone since the listing): skipped by readers. */
export interface UnreadableEntry {
  seq: number;
  message: string;
}

/** The end of the log as a reader or a publisher needs it. */
export interface LogEnd {
  /** The highest sequence number listed, readable or not (0: empty): the next commit is seq + 1. */
  seq: number;
  /** The newest entry that reads as one (null: none). */
  entry: LogEntry | null;
  /** The unreadable entries above `entry`, newest first. */
  unreadable: UnreadableEntry[];
}

/** Unreadable entries read past, at the log's end, before a reader gives up. */
const UNREADABLE_LIMIT = 32;

/**
 * The log's end: its highest sequence number and its newest readable entry. CURRENT, when it is
 * readable, says where to start listing; the log itself decides (a CURRENT behind the log, or
 * garbled, only costs a longer listing). An entry that is not a log entry is passed over, so one
 * bad object never stops publishers and followers; past UNREADABLE_LIMIT of them it is an error.
 */
export async function readLogEnd(store: ObjectStore): Promise<LogEnd> {
  const hint = await readCurrentHint(store);
  let keys = await store.list('log/', hint === null ? undefined : logKey(hint - 1));
  if (hint !== null && keys.length === 0) keys = await store.list('log/');
  const seqs = logSeqs(keys);
  const top = seqs.length === 0 ? 0 : Math.max(...seqs);
  const unreadable: UnreadableEntry[] = [];
  for (let seq = top; seq >= 1; seq--) {
    const read = await tryReadLogEntry(store, seq);
    if ('entry' in read) return { seq: top, entry: read.entry, unreadable };
    unreadable.push({ seq, message: read.message });
    if (unreadable.length >= UNREADABLE_LIMIT)
      throw new Error(
        `${store.url}: the newest ${UNREADABLE_LIMIT} log entries are unreadable (${unreadable[0]!.message})`,
      );
  }
  return { seq: top, entry: null, unreadable };
}

/** The newest readable log entry, or null for an empty log (see readLogEnd). */
export async function readLogHead(store: ObjectStore): Promise<LogEntry | null> {
  return (await readLogEnd(store)).entry;
}

/**
 * One log entry, or why it is not one (missing, not JSON, not an entry of that seq); an error of
 * the store itself (unreachable, refused) is thrown, not passed over.
 */
export async function tryReadLogEntry(
  store: ObjectStore,
  seq: number,
): Promise<{ entry: LogEntry } | { message: string }> {
  try {
    return { entry: await readLogEntry(store, seq) };
  } catch (error) {
    if (error instanceof UnreadableLogEntryError) return { message: error.message };
    throw error;
  }
}

/** A log entry that is missing or not a log entry of its sequence number. */
export class UnreadableLogEntryError extends MmdsError {
  constructor(message: string) {
    super('bucket_log_unreadable', message);
    this.name = 'UnreadableLogEntryError';
  }
}

/** Reads and checks one log entry; a malformed one is an error (the log is append-only). */
export async function readLogEntry(store: ObjectStore, seq: number): Promise<LogEntry> {
  const bytes = await store.get(logKey(seq));
  if (bytes === null) throw new UnreadableLogEntryError(`${store.url}/${logKey(seq)} is missing`);
  let entry: LogEntry;
  try {
    entry = JSON.parse(bytes.toString('utf8')) as LogEntry;
  } catch {
    throw new UnreadableLogEntryError(`${store.url}/${logKey(seq)} is not JSON`);
  }
  if (
    typeof entry !== 'object' ||
    entry === null ||
    entry.seq !== seq ||
    typeof entry.manifest !== 'string' ||
    !SNAPSHOT_ID_PATTERN.test(entry.snapshot_id ?? '') ||
    !/^[0-9a-f]{64}$/.test(entry.manifest_sha256 ?? '')
  )
    throw new UnreadableLogEntryError(`${store.url}/${logKey(seq)} is not a log entry of sequence ${seq}`);
  return entry;
}

async function readCurrentHint(store: ObjectStore): Promise<number | null> {
  const bytes = await store.get(CURRENT_KEY);
  const match = bytes === null ? null : /^(\d{1,12}) /.exec(bytes.toString('utf8'));
  const seq = match ? Number(match[1]) : 0;
  return seq >= 1 ? seq : null;
}

/** Up to `limit` readable log entries after entry `seq`, oldest first (unreadable ones left out). */
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
  const read = await Promise.all(seqs.map((n) => tryReadLogEntry(store, n)));
  return read.flatMap((one) => ('entry' in one ? [one.entry] : []));
}

/** The sequence numbers of listed log keys (other keys are ignored). */
function logSeqs(keys: readonly string[]): number[] {
  return keys.flatMap((key) => {
    const match = LOG_KEY_PATTERN.exec(key);
    return match ? [Number(match[1])] : [];
  });
}
