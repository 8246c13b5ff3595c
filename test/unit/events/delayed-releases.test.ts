import { describe, expect, it } from 'vitest';
import { getReleaseCalendars } from '../../../src/calendar/release-calendars.ts';
import { findDelayedReleases } from '../../../src/events/delayed-releases.ts';

/**
 * release.delayed is decided from the shipped calendars (data/calendars) and the releases that
 * landed: the Employment Situation of 2 October 2026 (08:30 New York, 12:30 UTC) and the ECB
 * reference rates of that day (16:00 Berlin).
 */
const SUBJECTS = { bls: ['bls.CES0000000001'], ecb: ['ecb.USD'], cftc: [] };
const OPTIONS = { graceMinutes: 30, lookbackHours: 20 };

describe('findDelayedReleases (real calendars)', () => {
  it('names a scheduled release past its grace that has not landed, and only that', async () => {
    const calendars = await getReleaseCalendars();
    const at = (now: string, landed: Parameters<typeof findDelayedReleases>[2]) =>
      findDelayedReleases(calendars, SUBJECTS, landed, { ...OPTIONS, now: new Date(now) }).map(
        (release) => `${release.source} ${release.name} ${release.at}`,
      );
    // The store follows both releases: it holds the previous ones (4 September, 1 October).
    const previous = [
      { source: 'bls', name: 'Employment Situation', released_at: '2026-09-04T12:30:00Z' },
      { source: 'ecb', name: 'Euro foreign exchange reference rates', released_at: '2026-10-01T14:00:00Z' },
    ];
    // 40 minutes after the Employment Situation, nothing new landed: it is delayed (an older
    // Employment Situation does not stand for this one).
    expect(at('2026-10-02T13:10:00Z', previous)).toEqual(['bls Employment Situation 2026-10-02T12:30:00Z']);
    // Within the grace period it is not (yet).
    expect(at('2026-10-02T12:50:00Z', previous)).toEqual([]);
    // Landed (dated by the calendar's time): not delayed.
    const landed = [
      ...previous,
      { source: 'bls', name: 'Employment Situation', released_at: '2026-10-02T12:30:00Z' },
    ];
    expect(at('2026-10-02T13:10:00Z', landed)).toEqual([]);
    // Later that day the ECB rates are due too; once both landed, nothing is delayed.
    const late = at('2026-10-02T15:00:00Z', landed);
    expect(late).toHaveLength(1);
    expect(late[0]).toMatch(/^ecb Euro foreign exchange reference rates 2026-10-02T1[45]:00:00Z$/);
    const ecb = {
      source: 'ecb',
      name: 'Euro foreign exchange reference rates',
      released_at: '2026-10-02T14:00:00Z',
    };
    expect(at('2026-10-02T15:00:00Z', [...landed, ecb])).toEqual([]);
  });

  it('judges only the releases the store follows: none of a store whose data ends months before', async () => {
    const calendars = await getReleaseCalendars();
    const at = (now: string, landed: Parameters<typeof findDelayedReleases>[2]) =>
      findDelayedReleases(calendars, SUBJECTS, landed, { ...OPTIONS, now: new Date(now) }).map(
        (release) => `${release.source} ${release.name}`,
      );
    // The bundled sample: ECB rates up to April, an Employment Situation of August. Nothing held
    // in the 45 days before: the store does not follow them, so a missing release is no delay.
    const sample = [
      { source: 'ecb', name: 'Euro foreign exchange reference rates', released_at: '2026-04-13T14:00:00Z' },
      { source: 'bls', name: 'Employment Situation', released_at: '2026-08-07T12:30:00Z' },
    ];
    expect(at('2026-10-02T15:30:00Z', sample)).toEqual([]);
    expect(at('2026-10-02T15:30:00Z', [])).toEqual([]);
    // Holding one release of the 45 days before is following it; only that release is judged.
    const ecbOn = (day: string) => ({
      source: 'ecb',
      name: 'Euro foreign exchange reference rates',
      released_at: `${day}T14:00:00Z`,
    });
    expect(at('2026-10-02T15:30:00Z', [...sample, ecbOn('2026-08-19')])).toEqual([
      'ecb Euro foreign exchange reference rates',
    ]);
    expect(at('2026-10-02T15:30:00Z', [...sample, ecbOn('2026-08-17')])).toEqual([]);
  });
});
