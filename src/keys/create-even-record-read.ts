import type { Storage } from 'unstorage';
import { writeItemText } from './atomic-item.ts';
import { type KeyRecord, KeyRecordSchema } from './key-record.ts';

/**
 * The storage item read in place of a key record that does not exist: a record-shaped decoy
 * (`<state>/decoys/key-record` on the `file` storage, outside the watched key directory). It is
 * written by the first check that finds it missing; it holds no key and no id in use.
 */
export const DECOY_ITEM = 'decoys:key-record';

/**
 * Read after a record that exists, and never written (not a key id, so never a record): with it
 * both outcomes read one item that is there and one that is not, in the same storage, through the
 * same driver call.
 */
const ABSENT_ITEM = 'keys:absent';

/** What the decoy holds: the size and shape of a typical record (the hash is of no key). */
const DECOY_RECORD: KeyRecord = {
  id: 'aaaaaaaaaaaa',
  org: 'Decoy Limited',
  name: 'missing record',
  scopes: ['cot:history', 'observations:read'],
  rate_limit: 60,
  created_at: '2026-01-01T00:00:00Z',
  expires_at: null,
  revoked_at: null,
  replaces: null,
  replaced_by: null,
  grace_until: null,
  hash: `hmac-sha256:${'0'.repeat(64)}`,
};

/**
 * Creates the read behind key checks: the stored value of a record item, or null when there is
 * none, doing the same work either way (CONTRACT section 4: a refusal never tells whether an id
 * exists). Without it a missing record cost a failed open against an open, read and close (the
 * `file` storage: a third of the time), and skipped the JSON and schema parse (memory, Redis).
 * So a present record is followed by a read of an item that is never there, and a missing one by
 * a read of the decoy, which is then validated as a record would be.
 */
export function createEvenRecordRead(storage: Storage): (key: string) => Promise<unknown> {
  let writing = false;
  let decoyWritable = true;
  const writeDecoy = () => {
    writing = true;
    writeItemText(storage, DECOY_ITEM, JSON.stringify(DECOY_RECORD)).then(
      () => {
        writing = false;
      },
      () => {
        // A read-only state storage: checks go on (a miss costs a little less), never retrying
        // a write for every unknown id that is sent.
        decoyWritable = false;
        writing = false;
      },
    );
  };

  return async (key) => {
    const value = await storage.getItem(key);
    if (value !== null) {
      await storage.getItem(ABSENT_ITEM);
      return value;
    }
    let decoy: unknown = await storage.getItem(DECOY_ITEM);
    if (decoy === null) {
      if (decoyWritable && !writing) writeDecoy();
      decoy = DECOY_RECORD;
    }
    // The caller validates a present record with the same schema; the outcome is of no use here.
    KeyRecordSchema.safeParse(decoy);
    return null;
  };
}
