import { z } from 'zod';
import { EVENT_TYPES } from '../events/event.ts';
import { V1_SECRET_PATTERN, V1A_PUBLIC_PATTERN, V1A_SECRET_PATTERN } from './signing-secret.ts';

/**
 * The stored record of one webhook subscription (issue 24). Issued by arrangement like an API key
 * (`mmds hooks add`); snake_case because it is a stored document, like key records.
 */

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const ID = /^[a-z2-7]{12}$/;
/** Dead letters kept per subscription; the oldest go first past it. */
export const MAX_DEAD_LETTERS = 100;

const timestamp = z.string().regex(TIMESTAMP);

/**
 * One signing secret, the newest first; an older one signs too until `expires_at`. `whsec_` for
 * v1 signatures (HMAC-SHA256), `whsk_` for v1a (ed25519) with its `whpk_` public key.
 */
export const HookSecretSchema = z.object({
  secret: z.string().refine((text) => V1_SECRET_PATTERN.test(text) || V1A_SECRET_PATTERN.test(text)),
  public_key: z.string().regex(V1A_PUBLIC_PATTERN).nullable().default(null),
  created_at: timestamp,
  /** Null for the current secret; set by a rotation on the one it replaced. */
  expires_at: timestamp.nullable(),
});

/** An event that was given up on: it is not delivered again unless replayed. */
export const DeadLetterSchema = z.object({
  event_id: z.string(),
  type: z.string(),
  /** When it was given up. */
  at: timestamp,
  /** 0 for a gap: events pruned from the log before they could be sent (type `gap`). */
  attempts: z.number().int().min(0),
  /** The last answer: `HTTP 400`, `timeout after 10000 ms`, `refused address 10.0.0.1`, ... */
  reason: z.string(),
});

/** The delivery of one event under way: kept in the record so that another deliverer continues it. */
export const PendingAttemptSchema = z.object({
  event_id: z.string(),
  /** Attempts made so far. */
  attempts: z.number().int().min(0),
  /** Not before this instant (ms since the epoch): the schedule's or Retry-After's delay. */
  next_at: z.number().int(),
  last_error: z.string().nullable(),
});

export const HOOK_STATES = ['active', 'paused', 'disabled'] as const;
export type HookState = (typeof HOOK_STATES)[number];

export const HookRecordSchema = z.object({
  id: z.string().regex(ID),
  /** The API key whose scopes bound what the subscription sees; revoked or expired: paused. */
  key_id: z.string().regex(ID),
  url: z.string().url(),
  /** Series key patterns (`*` any characters): `ecb.*`, `bls.CES*`, `*`. */
  series: z.array(z.string().min(1)).min(1),
  types: z.array(z.enum(EVENT_TYPES)).min(1),
  secrets: z.array(HookSecretSchema).min(1),
  state: z.enum(HOOK_STATES),
  /** Why it is paused or disabled (`paused by operator`, `HTTP 410 from receiver`, `key revoked`). */
  state_reason: z.string().nullable(),
  /** The last event id delivered, dead-lettered or skipped; null: none yet. */
  cursor: z.string().nullable(),
  /** Events observed before this instant are skipped (a new subscription starts at its creation); null after a replay. */
  starts_at: timestamp.nullable(),
  pending: PendingAttemptSchema.nullable(),
  dead_letters: z.array(DeadLetterSchema),
  /** Successful deliveries (for `mmds hooks list`). */
  delivered: z.number().int().min(0),
  created_at: timestamp,
});

export type HookRecord = z.infer<typeof HookRecordSchema>;
export type HookSecret = z.infer<typeof HookSecretSchema>;
export type DeadLetter = z.infer<typeof DeadLetterSchema>;

/** A record as shown to operators: the secrets replaced by when they were made and expire. */
export type PublicHookRecord = Omit<HookRecord, 'secrets'> & {
  secrets: Array<Omit<HookSecret, 'secret'>>;
};

/** Drops the secrets' values before a record is shown anywhere (list, logs). */
export function toPublicHook(record: HookRecord): PublicHookRecord {
  return {
    ...record,
    secrets: record.secrets.map(({ secret: _secret, ...rest }) => rest),
  };
}

/** The secrets that sign at an instant: the current one and any still in its grace period. */
export function signingSecrets(record: HookRecord, now: Date): string[] {
  const at = now.getTime();
  return record.secrets
    .filter((entry) => entry.expires_at === null || Date.parse(entry.expires_at) > at)
    .map((entry) => entry.secret);
}
