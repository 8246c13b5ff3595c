import type { EventFeed, ReleaseEvent } from '../events/event.ts';
import type { EventGoneError } from '../events/event-log.ts';
import { getKeyStatus, isUsableStatus } from '../keys/key-record.ts';
import { KeyRecordError, type KeyStore } from '../keys/key-store.ts';
import { hasErrorCode } from '../lib/errors.ts';

/**
 * What one pass of the deliverer reads once however many subscriptions ask (issue 38): the log
 * after a position (after a release most subscriptions stand at the same one) and each key's
 * scopes. A pass is short; the next one reads afresh.
 */

/** The log's events after a position, or the oldest snapshot kept when the position was pruned. */
export type LogRead = { events: ReleaseEvent[] } | { gone: string };

/** A key's scopes, or why its subscriptions may not receive anything now. */
export type KeyAccess = { scopes: string[] } | { problem: string };

/** The reads of one pass. */
export interface PassReads {
  readLog(after: string | null): Promise<LogRead>;
  scopesOf(keyId: string): Promise<KeyAccess>;
}

/** Reads a key's scopes, or why it is not usable (absent, revoked, expired, damaged). */
export async function readKeyScopes(keys: KeyStore, keyId: string, now: Date): Promise<KeyAccess> {
  try {
    const key = await keys.get(keyId);
    if (key === null) return { problem: `key ${keyId} does not exist` };
    const status = getKeyStatus(key, now);
    if (!isUsableStatus(status)) return { problem: `key ${keyId} is ${status}` };
    return { scopes: key.scopes };
  } catch (error) {
    if (error instanceof KeyRecordError) return { problem: error.message };
    throw error;
  }
}

/** Creates the memo of one pass: `batch` events per log read. */
export function createPassReads(
  feed: EventFeed,
  batch: number,
  readScopes: (keyId: string) => Promise<KeyAccess>,
): PassReads {
  const logReads = new Map<string | null, Promise<LogRead>>();
  const scopeReads = new Map<string, Promise<KeyAccess>>();
  return {
    readLog(after) {
      let read = logReads.get(after);
      if (!read) {
        read = feed.after(after, batch).then(
          (events) => ({ events }),
          (error: unknown) => {
            const oldest = hasErrorCode(error, 'event_gone') ? (error as EventGoneError).oldest : null;
            if (oldest === null) throw error;
            return { gone: oldest };
          },
        );
        logReads.set(after, read);
      }
      return read;
    },
    scopesOf(keyId) {
      let read = scopeReads.get(keyId);
      if (!read) {
        read = readScopes(keyId);
        scopeReads.set(keyId, read);
      }
      return read;
    },
  };
}
