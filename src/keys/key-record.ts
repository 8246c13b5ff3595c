import { z } from 'zod';
import { MAX_RATE_LIMIT } from '../contract/key-rate-limits.ts';
import { SCOPES } from '../contract/routes.ts';

/** Longest organisation or key name, in characters. */
export const MAX_TEXT_LENGTH = 100;

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const KEY_ID = /^[a-z2-7]{12}$/;
const HASH = /^(sha256|hmac-sha256):[0-9a-f]{64}$/;
// Control, format (bidi overrides), private-use and unassigned characters, and line separators.
const UNPRINTABLE = /[\p{C}\p{Zl}\p{Zp}]/u;

const timestamp = z.string().regex(TIMESTAMP);
const keyId = z.string().regex(KEY_ID);

/** The stored record of one key (CONTRACT section 4); snake_case because it is a stored document. */
export const KeyRecordSchema = z.object({
  id: keyId,
  org: z.string().refine((text) => describeTextProblem(text, false) === null),
  name: z.string().refine((text) => describeTextProblem(text, true) === null),
  scopes: z.array(z.enum(SCOPES)),
  /** Requests per minute. */
  rate_limit: z.number().int().min(1).max(MAX_RATE_LIMIT),
  created_at: timestamp,
  expires_at: timestamp.nullable(),
  revoked_at: timestamp.nullable(),
  /** Id of the key this one replaced by rotation. */
  replaces: keyId.nullable(),
  /** Id of the key that replaced this one (set on the old key by rotation). */
  replaced_by: keyId.nullable(),
  /** Set on the old key by rotation: refused from this instant on. */
  grace_until: timestamp.nullable(),
  /** `sha256:<hex>` or `hmac-sha256:<hex>` of the whole plaintext key; never the key itself. */
  hash: z.string().regex(HASH),
});

export type KeyRecord = z.infer<typeof KeyRecordSchema>;
/** A record as shown to operators: everything but the hash. */
export type PublicKeyRecord = Omit<KeyRecord, 'hash'>;

/** Where a key is in its life; only `active` and `grace` keys are accepted. */
export type KeyStatus = 'active' | 'grace' | 'rotated' | 'revoked' | 'expired';

/** Tells what state a key is in at an instant. */
export function getKeyStatus(record: KeyRecord | PublicKeyRecord, now: Date): KeyStatus {
  const at = now.getTime();
  // Revocation does not compare times: an instance whose clock lags must still refuse at once.
  if (record.revoked_at !== null) return 'revoked';
  if (record.expires_at !== null && at >= Date.parse(record.expires_at)) return 'expired';
  if (record.grace_until !== null) return at >= Date.parse(record.grace_until) ? 'rotated' : 'grace';
  return 'active';
}

/**
 * Returns the instant from which a key accepted now is refused although its record does not change
 * (its expiry or the end of its rotation grace, whichever comes first), or null when there is none.
 */
export function getKeyDeadline(record: KeyRecord | PublicKeyRecord): Date | null {
  const instants = [record.expires_at, record.grace_until]
    .filter((at): at is string => at !== null)
    .map((at) => Date.parse(at));
  return instants.length === 0 ? null : new Date(Math.min(...instants));
}

/** Tells whether a key in this state is accepted. */
export function isUsableStatus(status: KeyStatus): boolean {
  return status === 'active' || status === 'grace';
}

/** Drops the hash from a record before it is shown anywhere. */
export function toPublicRecord(record: KeyRecord): PublicKeyRecord {
  const { hash: _hash, ...rest } = record;
  return rest;
}

/**
 * Describes what is wrong with an organisation or key name, or returns null when it is fine:
 * printable, no surrounding white space, at most 100 characters.
 */
export function describeTextProblem(text: string, mayBeEmpty: boolean): string | null {
  if (text === '') return mayBeEmpty ? null : 'must not be empty';
  if ([...text].length > MAX_TEXT_LENGTH) return `must be at most ${MAX_TEXT_LENGTH} characters`;
  if (UNPRINTABLE.test(text)) return 'must contain only printable characters';
  if (text.trim() !== text) return 'must not start or end with white space';
  return null;
}
