import { getKeyDeadline, getKeyStatus, isUsableStatus, type KeyRecord } from '../keys/key-record.ts';

/** What a look at a stream's key found: it may read, it may not (the stream ended), or no answer. */
export type KeyVerdict = 'usable' | 'refused' | 'unknown';

/** The watch over the key of one open stream. */
export interface StreamKeyGuard {
  /**
   * Reads the key's record from the store now. Refused (revoked, expired, rotated out, removed):
   * `onRefused` runs once. Usable: a timer is set for the instant it stops being usable. The
   * store failing: 'unknown', and the stream is left as it is.
   */
  check(): Promise<KeyVerdict>;
  /** Stops the timer (the stream closed). */
  close(): void;
}

/** Longest delay setTimeout takes (about 24.8 days); a later deadline is reached in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Watches the key of one open stream. A revocation or any other change reaches it through
 * `check()`, which the streams call when the key change feed names the key and before they send
 * events (so nothing goes out after the store says revoked); an expiry or the end of a rotation
 * grace needs no change, so a timer at that instant (of the injected clock) checks again.
 */
export function guardStreamKey(
  keyId: string,
  deps: {
    /** The key's record in the store (never a cache), or null when there is none. */
    readKey: (id: string) => Promise<KeyRecord | null>;
    now: () => Date;
    onRefused: (reason: string) => void;
  },
): StreamKeyGuard {
  let timer: NodeJS.Timeout | undefined;
  let refused = false;
  let closed = false;
  const arm = (deadline: Date | null) => {
    clearTimeout(timer);
    timer = undefined;
    if (deadline === null || closed) return;
    // At least 1 ms, and re-checked when it fires: a clock that lags fires it early, not never.
    const wait = Math.min(MAX_TIMER_MS, Math.max(1, deadline.getTime() - deps.now().getTime()));
    timer = setTimeout(() => void check(), wait);
    timer.unref();
  };
  const check = async (): Promise<KeyVerdict> => {
    if (refused) return 'refused';
    let record: KeyRecord | null;
    try {
      record = await deps.readKey(keyId);
    } catch {
      return 'unknown';
    }
    if (refused) return 'refused';
    const status = record ? getKeyStatus(record, deps.now()) : 'removed';
    if (status !== 'removed' && isUsableStatus(status)) {
      arm(getKeyDeadline(record!));
      return 'usable';
    }
    refused = true;
    clearTimeout(timer);
    deps.onRefused(status);
    return 'refused';
  };
  return {
    check,
    close() {
      closed = true;
      clearTimeout(timer);
    },
  };
}
