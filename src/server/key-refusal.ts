import type { AuthFailureReason } from '../keys/key-store.ts';

/** The 401 message of every key whose holder has not proved its secret. */
export const INVALID_KEY_MESSAGE = 'the API key is not valid';

/**
 * What the 401 says to a refused key (CONTRACT section 4: the response never tells whether a key
 * id exists). A malformed key, an unknown id, a wrong secret and an unreadable record all get
 * INVALID_KEY_MESSAGE. Revoked, expired and rotated-out are only reached after the secret was
 * verified (key-store.ts checks the status after verifySecret): the caller holds the key, so
 * saying why it no longer works tells them nothing about ids they do not hold, and spares them
 * guessing between a typo and a revocation.
 */
const AFTER_PROVEN_SECRET: Partial<Record<AuthFailureReason, string>> = {
  revoked: 'the API key was revoked; ask its issuer for a new one',
  expired: 'the API key has expired; ask its issuer for a new one',
  rotated: 'the API key was replaced by a rotation and its grace period is over; use the new key',
};

/** The message of the 401 for a key refused for `reason`. */
export function describeKeyRefusal(reason: AuthFailureReason): string {
  return AFTER_PROVEN_SECRET[reason] ?? INVALID_KEY_MESSAGE;
}
