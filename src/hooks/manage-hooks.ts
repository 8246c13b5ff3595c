import { EVENT_TYPES, type EventType } from '../events/event.ts';
import { describePatternProblem } from '../events/series-pattern.ts';
import { isKeyId, randomId } from '../keys/key-codec.ts';
import { getKeyStatus } from '../keys/key-record.ts';
import type { KeyStore } from '../keys/key-store.ts';
import { KeyManagementError, MAX_GRACE_SECONDS } from '../keys/manage-keys.ts';
import { formatTimestamp } from '../lib/zoned-time.ts';
import { type AddressPolicy, describeUrlProblem } from './address-policy.ts';
import { MAX_PATTERNS } from './event-filter.ts';
import { HookNotFoundError, type HookStore, isHookId } from './hook-store.ts';
import { createSigningSecret, SIGNATURE_SCHEMES, type SignatureScheme, schemeOf } from './signing-secret.ts';
import type { HookRecord } from './subscription-record.ts';

/**
 * What `mmds hooks` does to subscriptions. Errors are KeyManagementErrors, as for keys:
 * `invalid_input` (exit 2), `not_found` (2), `conflict` (1).
 */

/** Signing secrets kept at once: the current one and at most two still in a grace period. */
const MAX_SECRETS = 3;

/** What a new subscription is for. */
export interface AddHookOptions {
  keyId: string;
  url: string;
  series: readonly string[];
  /** Empty: every type. */
  types: readonly string[];
  /** `v1` (HMAC-SHA256, the default) or `v1a` (ed25519). */
  scheme?: string;
}

/**
 * Adds a subscription for an existing, usable key. It starts at its creation: events observed
 * before it are not sent (replay sends older ones). Returns the record, whose secret the caller
 * prints once.
 */
export async function addHook(
  options: AddHookOptions,
  stores: { hooks: HookStore; keys: KeyStore },
  policy: AddressPolicy,
  now: Date,
): Promise<HookRecord> {
  const urlProblem = describeUrlProblem(options.url, policy);
  if (urlProblem) throw invalid(urlProblem);
  const series = assertPatterns(options.series);
  const types = assertTypes(options.types);
  const scheme = options.scheme ?? 'v1';
  if (!(SIGNATURE_SCHEMES as readonly string[]).includes(scheme))
    throw invalid(`--signature must be v1 (HMAC-SHA256) or v1a (ed25519), got "${scheme}"`);
  if (!isKeyId(options.keyId))
    throw invalid('--key must be a key id: the 12 characters (a-z, 2-7) between "mmds_" and the next "_"');
  const key = await stores.keys.get(options.keyId);
  if (key === null) throw new KeyManagementError('not_found', `no key with id ${options.keyId}`);
  const status = getKeyStatus(key, now);
  if (status !== 'active' && status !== 'grace')
    throw new KeyManagementError('conflict', `key ${key.id} is ${status}; subscribe with a usable key`);
  const created = formatTimestamp(now);
  for (let attempt = 0; attempt < 5; attempt++) {
    const record: HookRecord = {
      id: randomId(),
      key_id: key.id,
      url: options.url,
      series,
      types,
      secrets: [{ ...createSigningSecret(scheme as SignatureScheme), created_at: created, expires_at: null }],
      state: 'active',
      state_reason: null,
      cursor: null,
      starts_at: created,
      pending: null,
      dead_letters: [],
      delivered: 0,
      created_at: created,
    };
    if (await stores.hooks.create(record)) return record;
  }
  throw new Error('could not find an unused subscription id');
}

/**
 * Gives a subscription a new secret of the same scheme; the ones it had keep signing for `graceSeconds` (each
 * delivery then carries one signature per valid secret), so the receiver can switch without
 * refusing a delivery. Returns the record, whose first secret is the new one.
 */
export async function rotateHookSecret(
  id: string,
  graceSeconds: number,
  hooks: HookStore,
  now: Date,
): Promise<HookRecord> {
  if (!Number.isInteger(graceSeconds) || graceSeconds < 0 || graceSeconds > MAX_GRACE_SECONDS)
    throw invalid(
      `the grace period must be a whole number of seconds from 0 to ${MAX_GRACE_SECONDS} (90 days)`,
    );
  const until = formatTimestamp(new Date(now.getTime() + graceSeconds * 1000));
  const at = now.getTime();
  return change(id, hooks, (current) => ({
    ...current,
    secrets: [
      // The same scheme as before: the receiver's verification code does not change.
      {
        ...createSigningSecret(schemeOf(current.secrets[0]!.secret)),
        created_at: formatTimestamp(now),
        expires_at: null,
      },
      ...current.secrets
        .filter((entry) => entry.expires_at === null || Date.parse(entry.expires_at) > at)
        .map((entry) => ({
          ...entry,
          // A secret already expiring sooner keeps its earlier end.
          expires_at: entry.expires_at !== null && entry.expires_at < until ? entry.expires_at : until,
        }))
        .filter(() => graceSeconds > 0),
    ].slice(0, MAX_SECRETS),
  }));
}

/** Pauses deliveries; events keep accumulating after the cursor and follow on resume. */
export function pauseHook(id: string, hooks: HookStore): Promise<HookRecord> {
  return change(id, hooks, (current) =>
    current.state === 'paused' && current.state_reason === 'paused by operator'
      ? current
      : { ...current, state: 'paused', state_reason: 'paused by operator' },
  );
}

/**
 * Resumes a paused or disabled subscription where its cursor is (a disabled one from the event
 * that was refused); the retry count of a pending event starts again.
 */
export function resumeHook(id: string, hooks: HookStore): Promise<HookRecord> {
  return change(id, hooks, (current) =>
    current.state === 'active' ? current : { ...current, state: 'active', state_reason: null, pending: null },
  );
}

/** Removes a subscription; removing one that is gone is an error (a mistyped id must not pass silently). */
export async function removeHook(id: string, hooks: HookStore): Promise<HookRecord> {
  const record = await getHook(id, hooks);
  await hooks.remove(id);
  return record;
}

/**
 * Sends again every event after `since` (an event id, as SSE's Last-Event-ID: the event itself
 * is not sent again) that the subscription receives, dead letters included, in order, and then
 * carries on with new ones. Dead letters from there on are cleared from the list.
 */
export async function replayHook(id: string, since: string, hooks: HookStore): Promise<HookRecord> {
  if (!/^[A-Za-z0-9_.:-]{1,100}$/.test(since))
    throw invalid(`--since must be an event id such as 20261127T020000Z-1a2b3c4d:3, got "${since}"`);
  return change(id, hooks, (current) => ({
    ...current,
    cursor: since,
    starts_at: null,
    pending: null,
    dead_letters: current.dead_letters.filter((letter) => !isAfter(letter.event_id, since)),
  }));
}

/**
 * Compares event ids `<snapshot id>:<seq>`: snapshot ids sort as text, seq as a number.
 */
export function isAfter(id: string, other: string): boolean {
  const [snapshot = '', seq = '0'] = id.split(/:(?=[^:]*$)/);
  const [otherSnapshot = '', otherSeq = '0'] = other.split(/:(?=[^:]*$)/);
  if (snapshot !== otherSnapshot) return snapshot > otherSnapshot;
  return Number(seq) > Number(otherSeq);
}

async function getHook(id: string, hooks: HookStore): Promise<HookRecord> {
  if (!isHookId(id))
    throw invalid('not a subscription id: expected 12 characters a-z, 2-7 (mmds hooks list shows them)');
  const record = await hooks.get(id);
  if (record === null) throw new KeyManagementError('not_found', `no webhook subscription with id ${id}`);
  return record;
}

async function change(
  id: string,
  hooks: HookStore,
  next: (current: HookRecord) => HookRecord,
): Promise<HookRecord> {
  await getHook(id, hooks);
  try {
    return await hooks.update(id, next);
  } catch (error) {
    if (error instanceof HookNotFoundError) throw new KeyManagementError('not_found', error.message);
    throw error;
  }
}

function assertPatterns(patterns: readonly string[]): string[] {
  const list = patterns.map((pattern) => pattern.trim()).filter((pattern) => pattern !== '');
  if (list.length === 0)
    throw invalid('--series needs at least one series pattern, such as ecb.* or bls.CES0000000001');
  if (list.length > MAX_PATTERNS) throw invalid(`--series takes at most ${MAX_PATTERNS} patterns`);
  for (const pattern of list) {
    const problem = describePatternProblem(pattern);
    if (problem) throw invalid(problem);
  }
  return [...new Set(list)];
}

function assertTypes(types: readonly string[]): EventType[] {
  const list = types.map((type) => type.trim()).filter((type) => type !== '');
  if (list.length === 0) return [...EVENT_TYPES];
  for (const type of list) {
    if (!(EVENT_TYPES as readonly string[]).includes(type))
      throw invalid(`unknown event type ${JSON.stringify(type)}; known: ${EVENT_TYPES.join(', ')}`);
  }
  return EVENT_TYPES.filter((type) => list.includes(type));
}

function invalid(message: string): KeyManagementError {
  return new KeyManagementError('invalid_input', message);
}
