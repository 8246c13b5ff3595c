import { createHash, createHmac } from 'node:crypto';
import { crc32 } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createKey,
  hashSecret,
  KEY_LENGTH,
  parseKey,
  SECRET_BITS,
  SECRET_LENGTH,
  verifySecret,
} from '../../../src/keys/key-codec.ts';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SHAPE = /^mmds_[a-z2-7]{12}_[0-9A-Za-z]{38}$/;
const KEYS = Array.from({ length: 50 }, () => createKey().plaintext);

/** Replaces the character at `index`. */
function replaceAt(text: string, index: number, char: string): string {
  return text.slice(0, index) + char + text.slice(index + 1);
}

describe('createKey and parseKey', () => {
  it('round-trips: the parsed id and secret are the parts of the plaintext', () => {
    for (let i = 0; i < 200; i++) {
      const { plaintext, id } = createKey();
      expect(plaintext).toMatch(SHAPE);
      expect(plaintext).toHaveLength(KEY_LENGTH);
      expect(parseKey(plaintext)).toEqual({ id, secret: plaintext.slice(18, 50) });
    }
  });

  it('ends in the CRC32 of the rest, in six base62 digits', () => {
    const { plaintext } = createKey();
    let value = 0;
    for (const char of plaintext.slice(-6)) value = value * 62 + BASE62.indexOf(char);
    expect(value).toBe(crc32(plaintext.slice(0, -6)));
  });

  it('has at least 128 bits of randomness in the secret, spread over the whole alphabet', () => {
    expect(SECRET_LENGTH).toBe(32);
    expect(SECRET_BITS).toBeGreaterThanOrEqual(128);
    expect(SECRET_BITS).toBeCloseTo(190.5, 1);
    // Every base62 character shows up, and none dominates (modulo bias would favour the first 8).
    const counts = new Map<string, number>();
    for (let i = 0; i < 2000; i++) {
      for (const char of parseKey(createKey().plaintext)!.secret)
        counts.set(char, (counts.get(char) ?? 0) + 1);
    }
    expect(counts.size).toBe(62);
    const expected = (2000 * 32) / 62;
    for (const count of counts.values()) expect(Math.abs(count - expected)).toBeLessThan(expected * 0.2);
    const ids = new Set(Array.from({ length: 5000 }, () => createKey().id));
    expect(ids.size).toBe(5000);
  });

  it('refuses every single-character substitution of one key (exhaustive over the key alphabet)', () => {
    const { plaintext } = createKey();
    const alphabet = `${BASE62}_-é\u0000 `;
    for (let index = 0; index < plaintext.length; index++) {
      for (const char of alphabet) {
        if (char === plaintext[index]) continue;
        expect(parseKey(replaceAt(plaintext, index, char)), `${index} -> ${char}`).toBeNull();
      }
    }
  });

  it('refuses any single-character change of any key (property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...KEYS),
        fc.nat({ max: KEY_LENGTH - 1 }),
        // Mostly characters a key may contain (the hard case), sometimes anything at all.
        fc.oneof(fc.constantFrom(...`${BASE62}_`), fc.string({ minLength: 1, maxLength: 1, unit: 'binary' })),
        (plaintext, index, char) => {
          fc.pre(char !== plaintext[index]);
          expect(parseKey(replaceAt(plaintext, index, char))).toBeNull();
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('refuses insertions, deletions and swaps of neighbours', () => {
    fc.assert(
      fc.property(fc.constantFrom(...KEYS), fc.nat({ max: KEY_LENGTH - 2 }), (plaintext, i) => {
        expect(parseKey(plaintext.slice(0, i) + plaintext.slice(i + 1))).toBeNull();
        expect(parseKey(`${plaintext.slice(0, i)}a${plaintext.slice(i)}`)).toBeNull();
        const swapped = plaintext.slice(0, i) + plaintext[i + 1] + plaintext[i] + plaintext.slice(i + 2);
        if (swapped !== plaintext) expect(parseKey(swapped)).toBeNull();
      }),
    );
  });

  it('returns null for malformed input of every kind', () => {
    const { plaintext } = createKey();
    const body = plaintext.slice(0, -6);
    const malformed: unknown[] = [
      '',
      'mmds_',
      `${plaintext}a`,
      plaintext.slice(0, -1),
      ` ${plaintext}`,
      `${plaintext}\n`,
      plaintext.toUpperCase(),
      `MMDS_${plaintext.slice(5)}`,
      `mmdx_${plaintext.slice(5)}`,
      `sk_${plaintext.slice(3)}`,
      `Bearer ${plaintext}`,
      // the right checksum for a body with an uppercase id is still refused by its shape
      `mmds_${body.slice(5, 17).toUpperCase()}${body.slice(17)}${plaintext.slice(-6)}`,
      // unicode lookalikes of the same length: full-width digit, Cyrillic a, zero-width space
      replaceAt(plaintext, 20, '\uff11'),
      replaceAt(plaintext, 6, '\u0430'),
      replaceAt(plaintext, 30, '\u200b'),
      `${plaintext.slice(0, 54)}\u{1f511}`,
      'x'.repeat(1_000_000),
      `${plaintext}${plaintext}`,
      null,
      undefined,
      42,
      { toString: () => plaintext },
      [plaintext],
    ];
    for (const input of malformed) expect(parseKey(input), String(input).slice(0, 80)).toBeNull();
  });

  it('returns null for arbitrary strings (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 80 }), (text) => {
        expect(parseKey(text)).toBeNull();
      }),
    );
  });
});

describe('hashSecret and verifySecret', () => {
  const { plaintext } = createKey();

  it('is SHA-256 of the whole key without a pepper and HMAC-SHA-256 with one', () => {
    expect(hashSecret(plaintext, null)).toBe(
      `sha256:${createHash('sha256').update(plaintext).digest('hex')}`,
    );
    expect(hashSecret(plaintext, 'pepper')).toBe(
      `hmac-sha256:${createHmac('sha256', 'pepper').update(plaintext).digest('hex')}`,
    );
    expect(hashSecret(plaintext, 'pepper')).not.toContain(plaintext.slice(18, 50));
  });

  it('accepts the right key and refuses others', () => {
    const other = createKey().plaintext;
    for (const pepper of [null, 'pepper']) {
      const hash = hashSecret(plaintext, pepper);
      expect(verifySecret(plaintext, hash, pepper)).toBe(true);
      expect(verifySecret(other, hash, pepper)).toBe(false);
    }
  });

  it('refuses a peppered hash without the pepper or with another one', () => {
    const hash = hashSecret(plaintext, 'pepper');
    expect(verifySecret(plaintext, hash, null)).toBe(false);
    expect(verifySecret(plaintext, hash, 'other')).toBe(false);
  });

  it('refuses stored hashes that are not hashes, without throwing', () => {
    const hex = hashSecret(plaintext, null).slice(7);
    for (const stored of [
      '',
      'sha256:',
      `sha256:${hex.slice(2)}`,
      `md5:${hex}`,
      hex,
      `sha256:${hex}00`,
      plaintext,
    ]) {
      expect(verifySecret(plaintext, stored, null)).toBe(false);
    }
  });
});
