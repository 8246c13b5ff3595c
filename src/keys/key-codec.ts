import { createHmac, hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * API key format: `mmds_<id>_<secret><checksum>`.
 * - id: 12 characters of lowercase RFC 4648 base32 (a-z, 2-7), 60 random bits, not secret;
 * - secret: 32 base62 characters, each uniform over 62 values: 32 * log2(62) ≈ 190.5 bits;
 * - checksum: CRC32 of `mmds_<id>_<secret>` in 6 base62 characters (62^6 > 2^32).
 * The prefix lets secret scanners find leaked keys; the checksum refuses typos before any lookup.
 */
export const KEY_PREFIX = 'mmds_';
export const KEY_ID_LENGTH = 12;
export const SECRET_LENGTH = 32;
export const CHECKSUM_LENGTH = 6;
export const KEY_LENGTH = KEY_PREFIX.length + KEY_ID_LENGTH + 1 + SECRET_LENGTH + CHECKSUM_LENGTH;
/** Bits of randomness in the secret part alone (the id adds 60 more, but it is public). */
export const SECRET_BITS = SECRET_LENGTH * Math.log2(62);

const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_ID_PATTERN = /^[a-z2-7]{12}$/;
const KEY_PATTERN = /^mmds_([a-z2-7]{12})_([0-9A-Za-z]{32})([0-9A-Za-z]{6})$/;

/** A key split into its parts. */
export interface ParsedKey {
  id: string;
  secret: string;
}

/** A freshly generated key; the plaintext exists only in memory and on the operator's screen. */
export interface CreatedKey {
  plaintext: string;
  id: string;
}

/** Generates a new random key. */
export function createKey(): CreatedKey {
  const id = randomId();
  const body = `${KEY_PREFIX}${id}_${randomBase62(SECRET_LENGTH)}`;
  return { plaintext: `${body}${encodeChecksum(body)}`, id };
}

/**
 * Writes a key of a given id and secret with its checksum: a well-formed key whose secret is not
 * the stored one (the benchmark's and tests' "known id, wrong secret"), never a way to issue one.
 */
export function composeKey(id: string, secret: string): string {
  const body = `${KEY_PREFIX}${id}_${secret}`;
  return `${body}${encodeChecksum(body)}`;
}

/** Splits a key into id and secret, or returns null for anything malformed (checked before any lookup). */
export function parseKey(text: unknown): ParsedKey | null {
  // The length test first: a megabyte of input never reaches the regular expression.
  if (typeof text !== 'string' || text.length !== KEY_LENGTH) return null;
  const match = KEY_PATTERN.exec(text);
  if (!match) return null;
  const [, id, secret, checksum] = match as unknown as [string, string, string, string];
  if (checksum !== encodeChecksum(text.slice(0, -CHECKSUM_LENGTH))) return null;
  return { id, secret };
}

/** Tells whether a text has the form of a key id. */
export function isKeyId(text: unknown): text is string {
  return typeof text === 'string' && KEY_ID_PATTERN.test(text);
}

/**
 * Hashes a whole plaintext key for storage: HMAC-SHA-256 with the server pepper, or SHA-256 when
 * there is none. The algorithm is part of the result so that a later change of configuration is
 * recognised instead of silently failing every key.
 */
export function hashSecret(plaintext: string, pepper: string | null): string {
  return `${pepper ? 'hmac-sha256' : 'sha256'}:${digestSecret(plaintext, pepper).toString('hex')}`;
}

/** Compares a plaintext key with a stored hash in constant time. */
export function verifySecret(plaintext: string, storedHash: string, pepper: string | null): boolean {
  const separator = storedHash.indexOf(':');
  const algorithm = storedHash.slice(0, separator);
  // A peppered hash cannot be checked without the pepper: refuse rather than guess.
  if (algorithm === 'hmac-sha256' && !pepper) return false;
  if (algorithm !== 'hmac-sha256' && algorithm !== 'sha256') return false;
  const expected = Buffer.from(storedHash.slice(separator + 1), 'hex');
  const actual = digestSecret(plaintext, algorithm === 'sha256' ? null : pepper);
  // timingSafeEqual throws on different lengths; a stored hash of the wrong length is simply no match.
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** The raw digest behind hashSecret (compared as bytes: no hex text per request). */
function digestSecret(plaintext: string, pepper: string | null): Buffer {
  return pepper
    ? createHmac('sha256', pepper).update(plaintext).digest()
    : hash('sha256', plaintext, 'buffer');
}

/** A random id of 12 base32 characters (60 bits), the form of key ids and webhook subscription ids. */
export function randomId(): string {
  // 32 divides 256, so taking 5 bits of each byte keeps every character uniform.
  return Array.from(randomBytes(KEY_ID_LENGTH), (byte) => ID_ALPHABET[byte & 31]).join('');
}

function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // Rejection sampling: 248 = 4 * 62, so bytes below it map uniformly (no modulo bias).
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

function encodeChecksum(body: string): string {
  let value = crc32(body);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = BASE62[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}
