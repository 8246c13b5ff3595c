import { createPrivateKey, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/**
 * The two signature schemes of Standard Webhooks: `v1`, HMAC-SHA256 with a shared `whsec_`
 * secret (the receiver holds the secret), and `v1a`, ed25519 with a `whsk_` secret key that
 * stays here while the receiver holds only the `whpk_` public key (it cannot forge a delivery,
 * and a leak on its side reveals nothing secret). Both sign `<id>.<timestamp>.<body>`.
 */
export const SIGNATURE_SCHEMES = ['v1', 'v1a'] as const;
export type SignatureScheme = (typeof SIGNATURE_SCHEMES)[number];

/** `whsec_` and the base64 of 32 random bytes. */
export const V1_SECRET_PATTERN = /^whsec_[A-Za-z0-9+/]{43}=$/;
/** `whsk_` and the base64 of the ed25519 seed and public key (64 bytes, as libsodium keeps it). */
export const V1A_SECRET_PATTERN = /^whsk_[A-Za-z0-9+/]{86}==$/;
/** `whpk_` and the base64 of the 32-byte ed25519 public key. */
export const V1A_PUBLIC_PATTERN = /^whpk_[A-Za-z0-9+/]{43}=$/;

/** A new signing secret; for v1a with the public key the receiver verifies with. */
export function createSigningSecret(scheme: SignatureScheme): { secret: string; public_key: string | null } {
  if (scheme === 'v1') return { secret: `whsec_${randomBytes(32).toString('base64')}`, public_key: null };
  const { privateKey } = generateKeyPairSync('ed25519');
  const jwk = privateKey.export({ format: 'jwk' });
  const seed = Buffer.from(jwk.d!, 'base64url');
  const pub = Buffer.from(jwk.x!, 'base64url');
  return {
    secret: `whsk_${Buffer.concat([seed, pub]).toString('base64')}`,
    public_key: `whpk_${pub.toString('base64')}`,
  };
}

/** The scheme of a stored secret. */
export function schemeOf(secret: string): SignatureScheme {
  return secret.startsWith('whsk_') ? 'v1a' : 'v1';
}

/** One `v1,…` or `v1a,…` signature of a delivery. */
export function signDelivery(secret: string, id: string, at: Date, body: string): string {
  if (schemeOf(secret) === 'v1') return new Webhook(secret).sign(id, at, body);
  const raw = Buffer.from(secret.slice('whsk_'.length), 'base64');
  const key = createPrivateKey({
    key: {
      kty: 'OKP',
      crv: 'Ed25519',
      d: raw.subarray(0, 32).toString('base64url'),
      x: raw.subarray(32).toString('base64url'),
    },
    format: 'jwk',
  });
  const content = Buffer.from(`${id}.${Math.floor(at.getTime() / 1000)}.${body}`, 'utf8');
  return `v1a,${sign(null, content, key).toString('base64')}`;
}
