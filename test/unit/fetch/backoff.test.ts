import { beforeAll, describe, expect, it } from 'vitest';
import type { Calendars } from '../../../src/calendar/types.ts';
import { computeBackoffMs, parseRetryAfterMs } from '../../../src/fetch/backoff.ts';
import { findFirstCftcRelease } from '../../../src/fetch/cftc-first-release.ts';
import { DEFAULT_HTTP_OPTIONS } from '../../../src/fetch/http-options.ts';
import { loadShippedCalendars } from '../../helpers/shipped-calendars.ts';

describe('back-off and Retry-After', () => {
  it('doubles from the base delay with at most 25 % jitter', () => {
    expect([1, 2, 3, 4].map((attempt) => computeBackoffMs(1000, attempt, () => 0))).toEqual([
      1000, 2000, 4000, 8000,
    ]);
    expect(computeBackoffMs(1000, 1, () => 0.999)).toBeLessThanOrEqual(1250);
  });

  it('reads Retry-After as seconds or an HTTP date, capped', () => {
    const now = new Date('2026-03-20T12:00:00Z');
    expect(parseRetryAfterMs('7', now)).toBe(7000);
    expect(parseRetryAfterMs('Fri, 20 Mar 2026 12:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfterMs('Fri, 20 Mar 2026 11:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfterMs('99999', now)).toBe(600_000);
    expect(parseRetryAfterMs('soon', now)).toBeNull();
    expect(parseRetryAfterMs(null, now)).toBeNull();
  });

  it('defaults to 4 retries, 1 s back-off, 120 s time-out, 512 MiB and an mmds User-Agent', () => {
    expect(DEFAULT_HTTP_OPTIONS).toMatchObject({ retries: 4, backoffMs: 1000, timeoutMs: 120_000 });
    expect(DEFAULT_HTTP_OPTIONS.maxBytes).toBe(512 * 1024 * 1024);
    expect(DEFAULT_HTTP_OPTIONS.userAgent).toMatch(/^mmds\/\d+\.\d+\.\d+/);
  });
});

describe('findFirstCftcRelease', () => {
  let calendars: Calendars;
  beforeAll(async () => {
    calendars = await loadShippedCalendars();
  });

  it('takes the first Tuesday after New Year and the Friday of that week', () => {
    expect(findFirstCftcRelease(2027, calendars.cftc)).toMatchObject({
      reportDate: '2027-01-05',
      releaseDate: '2027-01-08',
    });
    // 2030-01-01 is a Tuesday (a holiday): the first report date is the following Tuesday.
    expect(findFirstCftcRelease(2030, calendars.cftc)).toMatchObject({
      reportDate: '2030-01-08',
      releaseDate: '2030-01-11',
    });
  });

  it('follows the calendar where a closure moved the release (2025-01-09, national day of mourning)', () => {
    expect(findFirstCftcRelease(2025, calendars.cftc)).toMatchObject({
      reportDate: '2025-01-07',
      releaseDate: '2025-01-13',
    });
  });
});
