import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from '../../../src/api/v1/cursor.ts';
import { ApiError } from '../../../src/contract/errors.ts';
import { PARAMS } from '../../../src/contract/params.ts';

function expectRefused(text: string): void {
  let error: unknown = null;
  try {
    decodeCursor(text);
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(ApiError);
  expect((error as ApiError).code).toBe('invalid_parameter');
  expect((error as ApiError).message).toContain('cursor');
}

const b64 = (text: string) => Buffer.from(text).toString('base64url');

describe('history cursor', () => {
  it('round-trips the last period and revision of a page', () => {
    for (const cursor of [
      { period: '2025-07', revision_number: 2 },
      { period: '1939-01', revision_number: 1 },
      { period: '2025-Q4', revision_number: 17 },
      { period: '2025-03-11', revision_number: 1 },
      { period: '2025', revision_number: 3 },
    ]) {
      const text = encodeCursor(cursor);
      expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(PARAMS.cursor.schema.safeParse(text).success).toBe(true);
      expect(decodeCursor(text)).toEqual(cursor);
    }
  });

  it('is base64url JSON', () => {
    expect(
      JSON.parse(
        Buffer.from(encodeCursor({ period: '2025-07', revision_number: 2 }), 'base64url').toString(),
      ),
    ).toEqual({
      p: '2025-07',
      r: 2,
    });
  });

  it('refuses what does not decode to a cursor', () => {
    expectRefused('not-a-cursor');
    expectRefused(b64('not json'));
    expectRefused(b64('[]'));
    expectRefused(b64('null'));
    expectRefused(b64('{"p":"2025-07"}'));
    expectRefused(b64('{"p":"2025-07","r":0}'));
    expectRefused(b64('{"p":"2025-07","r":1.5}'));
    expectRefused(b64('{"p":"2025-07","r":"2"}'));
    expectRefused(b64('{"p":"","r":1}'));
    expectRefused(b64(`{"p":"${'9'.repeat(40)}","r":1}`));
  });

  it('refuses a cursor that only decodes leniently', () => {
    const text = encodeCursor({ period: '2025-07', revision_number: 2 });
    // Node skips characters outside the alphabet; the cursor must still be exactly ours.
    expectRefused(`${text.slice(0, 4)}=${text.slice(4)}`);
    expectRefused(`${text}A`);
  });
});
