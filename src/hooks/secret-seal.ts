import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Signing secrets at rest. A webhook secret cannot be stored as a hash, as key secrets are: every
 * delivery is signed with it. With MMDS_KEY_PEPPER set (the server-side secret key hashes are
 * mixed with), the state storage holds it sealed with AES-256-GCM under a key derived from the
 * pepper, so a copy of the storage (a Redis dump, a backup of the data directory) reveals no
 * secret; without a pepper it is stored as is, in a 0600 file or Redis, like the key records.
 * Changing the pepper makes sealed secrets unreadable: rotate the subscriptions' secrets then.
 */

const PREFIX = 'sealed:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

function keyOf(pepper: string): Buffer {
  return Buffer.from(hkdfSync('sha256', pepper, 'mmds', 'webhook signing secrets', 32));
}

/** Tells whether a stored secret is sealed. */
export function isSealed(text: string): boolean {
  return text.startsWith(PREFIX);
}

/** Seals a secret: `sealed:` and the base64 of IV, tag and cipher text. */
export function sealSecret(secret: string, pepper: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyOf(pepper), iv);
  const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return `${PREFIX}${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
}

/** Opens a sealed secret; throws when the pepper is missing or not the one it was sealed with. */
export function openSecret(sealed: string, pepper: string | null): string {
  if (pepper === null) throw new Error('its secret is sealed with MMDS_KEY_PEPPER, which is not set');
  const raw = Buffer.from(sealed.slice(PREFIX.length), 'base64');
  const decipher = createDecipheriv('aes-256-gcm', keyOf(pepper), raw.subarray(0, IV_BYTES));
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString(
      'utf8',
    );
  } catch {
    throw new Error(
      'its secret was sealed with another MMDS_KEY_PEPPER; rotate its secret (mmds hooks rotate)',
    );
  }
}
