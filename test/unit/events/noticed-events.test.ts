import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { releaseId } from '../../../src/api/v1/releases.ts';
import { getReleaseCalendars } from '../../../src/calendar/release-calendars.ts';
import { findDelayedReleases } from '../../../src/events/delayed-releases.ts';
import type { ReleaseEvent } from '../../../src/events/event.ts';
import { EVENTS_FILE } from '../../../src/events/event-file.ts';
import { openEventLog } from '../../../src/events/event-log.ts';
import { noticeDelayedReleases, noticedEventsDir } from '../../../src/events/noticed-events.ts';
import { resolveLayout, snapshotDir } from '../../../src/store/layout.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';

/**
 * The file of events noticed between snapshots (release.delayed), on the delays the real
 * calendars give for 2 October 2026 (the Employment Situation at 12:30 UTC, nothing landed since
 * the one of September). The
 * data directory holds two snapshots' manifests and event files as publish writes them (the
 * e2e test in test/e2e/events/events.test.ts runs the whole path over real publishes).
 */

const FIRST = '20261001T120000Z-aaaaaaaa';
const SECOND = '20261002T140000Z-bbbbbbbb';

describe('events noticed between snapshots', () => {
  let temp: ReturnType<typeof createTempDir>;
  afterEach(() => temp?.remove());

  const setup = () => {
    temp = createTempDir('mmds-noticed-');
    const layout = resolveLayout(temp.dir);
    const snapshot = (id: string, parent: string | null, count: number) => {
      const dir = snapshotDir(layout, id);
      mkdirSync(dir, { recursive: true });
      const events = Array.from({ length: count }, (_, i) => ({
        id: `${id}:${i + 1}`,
        type: 'release.published',
        snapshot: id,
        source: 'ecb',
        series: null,
        observed_at: '2026-10-01T12:00:00Z',
        public: true,
        data: {},
      }));
      writeFileSync(join(dir, EVENTS_FILE), events.map((e) => `${JSON.stringify(e)}\n`).join(''));
      const manifest = {
        id,
        parent,
        created_at: '2026-10-01T12:00:00Z',
        tables: {},
        events: { file: EVENTS_FILE, rows: count },
      };
      writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));
    };
    snapshot(FIRST, null, 2);
    writeFileSync(layout.currentFile, `${FIRST}\n`);
    return { layout, snapshot };
  };
  const delayedAt = async (now: Date) =>
    findDelayedReleases(
      await getReleaseCalendars(),
      { bls: ['bls.CES0000000001'], ecb: [], cftc: [] },
      // The store follows the Employment Situation: it holds the one of September.
      [{ source: 'bls', name: 'Employment Situation', released_at: '2026-09-04T12:30:00Z' }],
      { now, graceMinutes: 30, lookbackHours: 20 },
    );
  const notice = (
    layout: ReturnType<typeof resolveLayout>,
    snapshot: string,
    now: Date,
    delayed: Awaited<ReturnType<typeof delayedAt>>,
  ) =>
    noticeDelayedReleases(layout, {
      snapshot,
      delayed,
      now,
      graceMinutes: 30,
      releaseId: (r) => releaseId(r.source, r.name, r.at),
    });

  it('numbers them after the snapshot, once per release however many check at once, and the log reads them between snapshots', async () => {
    const { layout, snapshot } = setup();
    const now = new Date('2026-10-02T13:10:00Z');
    const delayed = await delayedAt(now);
    expect(delayed.map((r) => r.name)).toEqual(['Employment Situation']);
    // Three checkers at once (as three servers would): one event.
    const written = await Promise.all([1, 2, 3].map(() => notice(layout, FIRST, now, delayed)));
    expect(written.flat().map((e) => e.id)).toEqual([`${FIRST}:3`]);
    const [event] = written.flat() as [ReleaseEvent];
    expect(event).toMatchObject({
      type: 'release.delayed',
      snapshot: FIRST,
      observed_at: '2026-10-02T13:10:00Z',
      data: {
        release: 'bls-employment-situation',
        release_name: 'Employment Situation',
        release_id: 'bls-employment-situation-20261002T123000Z',
        scheduled_at: '2026-10-02T12:30:00Z',
      },
    });
    // Later checks, on this snapshot or the next, do not repeat it.
    expect(await notice(layout, FIRST, new Date('2026-10-02T13:40:00Z'), delayed)).toEqual([]);
    snapshot(SECOND, FIRST, 1);
    writeFileSync(layout.currentFile, `${SECOND}\n`);
    expect(await notice(layout, SECOND, new Date('2026-10-02T14:10:00Z'), delayed)).toEqual([]);
    const log = openEventLog(layout);
    const all = await log.read(null, 100);
    expect(all.events.map((e) => e.id)).toEqual([`${FIRST}:1`, `${FIRST}:2`, `${FIRST}:3`, `${SECOND}:1`]);
    expect((await log.read(`${FIRST}:3`, 100)).events.map((e) => e.id)).toEqual([`${SECOND}:1`]);
  });

  it('writes nothing for a snapshot that is no longer CURRENT, and drops a line cut short by a crash', async () => {
    const { layout, snapshot } = setup();
    const now = new Date('2026-10-02T13:10:00Z');
    const delayed = await delayedAt(now);
    snapshot(SECOND, FIRST, 1);
    writeFileSync(layout.currentFile, `${SECOND}\n`);
    // Decided on the first snapshot, but a publish switched meanwhile: the next check decides.
    expect(await notice(layout, FIRST, now, delayed)).toEqual([]);
    // A crash left half a line: readers ignore it, the next append replaces it.
    const file = join(noticedEventsDir(layout), `${SECOND}.ndjson`);
    mkdirSync(noticedEventsDir(layout), { recursive: true });
    appendFileSync(file, '{"id":"cut sh');
    expect((await openEventLog(layout).read(`${SECOND}:1`, 10)).events).toEqual([]);
    const [event] = await notice(layout, SECOND, now, delayed);
    expect(event!.id).toBe(`${SECOND}:2`);
    expect(readFileSync(file, 'utf8')).toBe(`${JSON.stringify(event)}\n`);
    expect((await openEventLog(layout).read(`${SECOND}:1`, 10)).events).toEqual([event]);
  });
});
