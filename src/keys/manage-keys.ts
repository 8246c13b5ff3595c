import { DEFAULT_RATE_LIMIT, MAX_RATE_LIMIT } from '../contract/key-rate-limits.ts';
import { SCOPES, type Scope } from '../contract/routes.ts';
import { MmdsError, type MmdsErrorCode } from '../lib/errors.ts';
import { formatTimestamp } from '../lib/zoned-time.ts';
import { createKey, hashSecret, isKeyId } from './key-codec.ts';
import {
  describeTextProblem,
  getKeyStatus,
  type KeyRecord,
  type PublicKeyRecord,
  toPublicRecord,
} from './key-record.ts';
import { KeyNotFoundError, type KeyStore } from './key-store.ts';

/** Longest grace period a rotation may leave the old key working. */
export const MAX_GRACE_SECONDS = 90 * 86_400;

/** What a new key is for. */
export interface IssueKeyOptions {
  org: string;
  /** Free text for operators (who holds the key, what for); empty when not given. */
  name?: string;
  scopes: readonly string[];
  /** Requests per minute; default 60. */
  rateLimit?: number;
  expiresAt?: Date | null;
}

/** Options of a rotation. */
export interface RotateKeyOptions {
  /** How long the old key keeps working; 0 refuses it from now on. */
  graceSeconds: number;
}

/** A key that was just issued: the plaintext is returned once and stored nowhere. */
export interface IssuedKey {
  plaintext: string;
  record: KeyRecord;
}

/**
 * Why a key operation was refused: `invalid_input` (bad values), `not_found` (no such id),
 * `conflict` (the key's state does not allow it, such as rotating a revoked key).
 */
export class KeyManagementError extends MmdsError {
  /** The error code of each kind (usage for bad values or an unknown id; failed for a conflict). */
  static readonly CODES = {
    invalid_input: 'key_invalid_input',
    not_found: 'key_not_found',
    conflict: 'key_conflict',
  } as const satisfies Record<string, MmdsErrorCode>;

  readonly kind: 'invalid_input' | 'not_found' | 'conflict';
  constructor(kind: KeyManagementError['kind'], message: string) {
    super(KeyManagementError.CODES[kind], message);
    this.name = 'KeyManagementError';
    this.kind = kind;
  }
}

/** Issues a key for an organisation and stores only its hash. */
export async function issueKey(
  options: IssueKeyOptions,
  store: KeyStore,
  now: Date,
  pepper: string | null,
): Promise<IssuedKey> {
  const expiresAt = options.expiresAt ?? null;
  if (expiresAt !== null && !(expiresAt.getTime() > now.getTime())) {
    throw invalid(`the expiry ${formatTimestamp(expiresAt)} is not in the future`);
  }
  return createRecord(
    {
      org: assertText('org', options.org, false),
      name: assertText('name', options.name ?? '', true),
      scopes: assertScopes(options.scopes),
      rate_limit: assertRateLimit(options.rateLimit ?? DEFAULT_RATE_LIMIT),
      expires_at: expiresAt === null ? null : formatTimestamp(expiresAt),
      replaces: null,
    },
    store,
    now,
    pepper,
  );
}

/**
 * Replaces a key by a new one with the same organisation, name, scopes, limit and expiry; the old
 * key keeps working until now + grace, then is refused.
 */
export async function rotateKey(
  id: string,
  options: RotateKeyOptions,
  store: KeyStore,
  now: Date,
  pepper: string | null,
): Promise<IssuedKey & { previous: KeyRecord }> {
  const grace = options.graceSeconds;
  if (!Number.isInteger(grace) || grace < 0 || grace > MAX_GRACE_SECONDS) {
    throw invalid(
      `the grace period must be a whole number of seconds from 0 to ${MAX_GRACE_SECONDS} (90 days)`,
    );
  }
  const old = await getExisting(id, store);
  assertRotatable(old, now);
  const issued = await createRecord(
    {
      org: old.org,
      name: old.name,
      scopes: old.scopes,
      rate_limit: old.rate_limit,
      expires_at: old.expires_at,
      replaces: old.id,
    },
    store,
    now,
    pepper,
  );
  // The new key is written first: a crash in between leaves the old key working, never neither.
  // The old record is then changed by compare-and-set: a revocation (or another rotation) that
  // landed since it was read is kept, and checked again, so a revoke always wins.
  const graceUntil = formatTimestamp(new Date(now.getTime() + grace * 1000));
  try {
    const { record: previous } = await store.update(id, (current) => {
      assertRotatable(current, now);
      return { ...current, replaced_by: issued.record.id, grace_until: graceUntil };
    });
    return { ...issued, previous };
  } catch (error) {
    // The replacement was never handed out: it must not stay usable beside a revoked key.
    await store.remove(issued.record.id);
    if (error instanceof KeyNotFoundError) throw new KeyManagementError('not_found', error.message);
    throw error;
  }
}

/** Refuses to rotate a key that is revoked, expired or rotated already. */
function assertRotatable(record: KeyRecord, now: Date): void {
  const status = getKeyStatus(record, now);
  if (status === 'revoked' || status === 'expired') {
    throw new KeyManagementError('conflict', `key ${record.id} is ${status}; issue a new key instead`);
  }
  if (record.replaced_by !== null) {
    throw new KeyManagementError(
      'conflict',
      `key ${record.id} was already rotated to ${record.replaced_by}; rotate that key instead`,
    );
  }
}

/**
 * Revokes a key from now on; revoking it again changes nothing and says so. Compare-and-set: a
 * rotation writing the same record concurrently cannot undo it.
 */
export async function revokeKey(
  id: string,
  store: KeyStore,
  now: Date,
): Promise<{ record: KeyRecord; changed: boolean }> {
  const old = await getExisting(id, store);
  if (old.revoked_at !== null) return { record: old, changed: false };
  let changed = true;
  const { record } = await store
    .update(id, (current) => {
      changed = current.revoked_at === null;
      return changed ? { ...current, revoked_at: formatTimestamp(now) } : current;
    })
    .catch((error: unknown) => {
      if (error instanceof KeyNotFoundError) throw new KeyManagementError('not_found', error.message);
      throw error;
    });
  return { record, changed };
}

/** Lists every key without its hash, oldest first. */
export async function listKeys(store: KeyStore): Promise<PublicKeyRecord[]> {
  return (await store.list()).map(toPublicRecord);
}

type NewRecordFields = Pick<KeyRecord, 'org' | 'name' | 'scopes' | 'rate_limit' | 'expires_at' | 'replaces'>;

async function createRecord(
  fields: NewRecordFields,
  store: KeyStore,
  now: Date,
  pepper: string | null,
): Promise<IssuedKey> {
  // 60 random bits make a collision unlikely; create-if-absent keeps an existing record from being overwritten.
  for (let attempt = 0; attempt < 5; attempt++) {
    const { plaintext, id } = createKey();
    const record: KeyRecord = {
      id,
      ...fields,
      created_at: formatTimestamp(now),
      revoked_at: null,
      replaced_by: null,
      grace_until: null,
      hash: hashSecret(plaintext, pepper),
    };
    if (await store.create(record)) return { plaintext, record };
  }
  throw new Error('could not find an unused key id');
}

async function getExisting(id: string, store: KeyStore): Promise<KeyRecord> {
  // The argument is not echoed: an operator may have pasted a whole key by mistake.
  if (!isKeyId(id)) {
    throw invalid('not a key id: expected the 12 characters (a-z, 2-7) between "mmds_" and the next "_"');
  }
  const record = await store.get(id);
  if (!record) throw new KeyManagementError('not_found', `no key with id ${id}`);
  return record;
}

function assertText(field: string, text: string, mayBeEmpty: boolean): string {
  const problem = describeTextProblem(text, mayBeEmpty);
  if (problem) throw invalid(`${field} ${problem}`);
  return text;
}

function assertScopes(scopes: readonly string[]): Scope[] {
  if (scopes.length === 0) throw invalid(`at least one scope is needed; known: ${SCOPES.join(', ')}`);
  for (const scope of scopes) {
    if (!(SCOPES as readonly string[]).includes(scope)) {
      throw invalid(`unknown scope ${JSON.stringify(scope)}; known: ${SCOPES.join(', ')}`);
    }
  }
  return SCOPES.filter((scope) => scopes.includes(scope));
}

function assertRateLimit(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_RATE_LIMIT) {
    throw invalid(
      `the rate limit must be a whole number of requests per minute from 1 to ${MAX_RATE_LIMIT}, got ${limit}`,
    );
  }
  return limit;
}

function invalid(message: string): KeyManagementError {
  return new KeyManagementError('invalid_input', message);
}
