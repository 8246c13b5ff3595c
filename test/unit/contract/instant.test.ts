import { describe, expect, it } from 'vitest';
import { INSTANT_PATTERN, normaliseInstant } from '../../../src/contract/instant.ts';

describe('normaliseInstant: the timestamp forms as_of accepts, as UTC whole seconds', () => {
  it.each([
    ['2025-12-31T12:00:00Z', '2025-12-31T12:00:00Z'],
    ['2025-12-31T12:00:00.000Z', '2025-12-31T12:00:00Z'],
    // The fraction is dropped, never rounded up: never later than asked.
    ['2025-12-31T23:59:59.999999999Z', '2025-12-31T23:59:59Z'],
    ['2025-12-31T13:00:00+01:00', '2025-12-31T12:00:00Z'],
    ['2026-01-01T00:30:00+01:00', '2025-12-31T23:30:00Z'],
    ['2025-12-31T19:00:00-05:00', '2026-01-01T00:00:00Z'],
    ['2025-12-31T12:00:00-00:00', '2025-12-31T12:00:00Z'],
    ['2025-12-31t12:00:00z', '2025-12-31T12:00:00Z'],
    ['2025-12-31', '2025-12-31T23:59:59Z'],
    ['2024-02-29', '2024-02-29T23:59:59Z'],
  ])('%s is %s', (text, expected) => {
    expect(normaliseInstant(text)).toBe(expected);
    expect(new RegExp(INSTANT_PATTERN).test(text)).toBe(true);
  });

  it.each([
    '2025-02-29',
    '2025-02-30T00:00:00Z',
    '2025-12-31T24:00:00Z',
    '2025-12-31T12:00:60Z',
    '2025-12-31T12:00:00',
    '2025-12-31 12:00:00Z',
    '2025-12-31T12:00Z',
    '2025-12-31T12:00:00+0100',
    '2025-12-31T12:00:00+24:00',
    '2025-12-31T12:00:00.Z',
    '2025-12-31T12:00:00.1234567890Z',
    '0000-01-01T00:30:00+01:00',
    '20251231',
    '2025-12',
    '',
  ])('%j is refused', (text) => {
    expect(normaliseInstant(text)).toBeNull();
  });
});
