import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES, type ReleaseEvent } from '../../../src/events/event.ts';
import { EVENTS_FILE } from '../../../src/events/event-file.ts';
import { EventGoneError, openEventLog } from '../../../src/events/event-log.ts';
import { diffSnapshots } from '../../../src/query/changes.ts';
import { resolveLayout, snapshotDir } from '../../../src/store/layout.ts';
import { readCurrentId, readManifest } from '../../../src/store/manifest.ts';
import { SAMPLE_DATA } from '../../helpers/paths.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import {
  createSampleSnapshot,
  LICENSED_SERIES_KEY,
  type SnapshotFixture,
} from '../../helpers/snapshot-fixture.ts';

/**
 * The event log as publish writes it, on the real sample (data/sample/pipeline.json) with the
 * test-only licensed vendor: the first snapshot (every series new: the sample's biggest change),
 * then a second one that adds the later PAYEMS vintage to the licensed series (revisions and new
 * months). Events are read back through openEventLog and checked against the change feed's diff.
 */

const LATE = join(SAMPLE_DATA, 'bls/fred_PAYEMS_vintage_latest-2026-09_trimmed_2023-07_onward.csv');
const SECOND_AT = new Date('2026-11-24T09:00:00Z');

describe('event log written by publish (real sample)', () => {
  let fixture: SnapshotFixture;
  let first: string;
  let second: string;
  const layout = () => resolveLayout(fixture.dataDir);
  const eventsOf = (id: string): ReleaseEvent[] =>
    readFileSync(join(snapshotDir(layout(), id), EVENTS_FILE), 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as ReleaseEvent);

  beforeAll(async () => {
    fixture = await createSampleSnapshot({ licensed: true });
    first = fixture.snapshotId;
    const run = async (argv: string[]) => {
      const result = await runMmds(argv, fixture.env, () => SECOND_AT);
      expect(result.code, result.stderr).toBe(0);
      return result;
    };
    await run(['ingest', 'fred', LATE, '--series', LICENSED_SERIES_KEY, '--vintage', '2026-10-02']);
    await run(['publish']);
    second = readCurrentId(layout())!;
    expect(second).not.toBe(first);
  }, 240_000);

  afterAll(() => fixture?.remove());

  it('lists the events file in the manifest with its sha256, and mmds verify accepts both snapshots', async () => {
    for (const id of [first, second]) {
      const entry = readManifest(layout(), id).events!;
      expect(entry.file).toBe(EVENTS_FILE);
      expect(entry.rows).toBe(eventsOf(id).length);
    }
    const verify = await runMmds(['verify'], fixture.env);
    expect(verify.code, verify.stderr + verify.stdout).toBe(0);
  });

  it('numbers events <snapshot>:1.. in type order, each under 20 KB, observed_at never before the facts', () => {
    for (const id of [first, second]) {
      const events = eventsOf(id);
      const created = readManifest(layout(), id).created_at;
      expect(events.length).toBeGreaterThan(0);
      events.forEach((event, index) => {
        expect(event.id).toBe(`${id}:${index + 1}`);
        expect(event.snapshot).toBe(id);
        expect(Buffer.byteLength(JSON.stringify(event))).toBeLessThan(20_000);
        expect(event.observed_at >= created).toBe(true);
        const values = [
          ...(event.type === 'series.released'
            ? ((event.data.values as Array<{ observed_at: string }> | null) ?? [])
            : []),
          ...(event.type === 'series.revised'
            ? ((event.data.revisions as Array<{ new_observed_at: string }> | null) ?? [])
            : []
          ).map((r) => ({
            observed_at: r.new_observed_at,
          })),
        ];
        for (const value of values) expect(event.observed_at >= value.observed_at).toBe(true);
      });
      const order = events.map((event) => EVENT_TYPES.indexOf(event.type));
      expect(order).toEqual([...order].sort((a, b) => a - b));
    }
    // The first snapshot holds every series of the sample: some are too long to list and link instead.
    const big = eventsOf(first).filter((e) => e.type === 'series.released' && e.data.values === null);
    expect(big.length).toBeGreaterThan(0);
    for (const event of big.filter((e) => e.data.kind === 'series'))
      expect(event.data.link).toMatch(/^\/api\/v1\/observations\?series=.+&from=.+&to=.+&as_of=/);
  });

  it('marks licensed series and COT reports outside the public window as not public, with the scopes they need', () => {
    const events = eventsOf(first);
    const licensed = events.filter((e) => e.series === LICENSED_SERIES_KEY);
    expect(licensed.length).toBeGreaterThan(0);
    for (const event of licensed)
      expect(event).toMatchObject({ public: false, scopes: ['observations:read'] });
    // The sample's COT files hold more than 12 reports of some markets: those series' events are keyed.
    const cot = events.filter((e) => e.type === 'series.released' && e.source === 'cftc');
    expect(cot.some((e) => !e.public && e.scopes?.includes('cot:history'))).toBe(true);
    for (const event of cot.filter((e) => !e.public)) expect(event.data.count as number).toBeGreaterThan(12);
    for (const event of cot.filter((e) => e.public))
      expect(event.data.count as number).toBeLessThanOrEqual(12);
    // A public release names no licensed or old COT series: it is public only when all of its series are.
    const payrolls = events.find((e) => e.series === 'bls.CES0000000001' && e.type === 'series.released')!;
    expect(payrolls.public).toBe(true);
    const testvendor = events.find((e) => e.type === 'release.published' && e.source === 'testvendor')!;
    expect(testvendor.public).toBe(false);
  });

  it('describes the second publish as the change feed does: the licensed series revised and extended', async () => {
    const events = eventsOf(second);
    const changes = await diffSnapshots(
      layout(),
      readManifest(layout(), first),
      readManifest(layout(), second),
    );
    const changed = changes.keys.filter((k) => k.new_observations > 0 || k.revisions > 0);
    expect(changed.map((k) => k.series_key)).toEqual([LICENSED_SERIES_KEY]);
    const [key] = changed;
    expect(events.map((e) => e.type)).toEqual(['release.published', 'series.released', 'series.revised']);
    const [release, released, revised] = events as [ReleaseEvent, ReleaseEvent, ReleaseEvent];
    expect(release.data).toMatchObject({
      release: 'testvendor',
      series: 1,
      new_observations: key!.new_observations,
      revisions: key!.revisions,
      parent: first,
      changes: `/api/v1/changes?since=${first}`,
    });
    expect(released.data.count).toBe(key!.new_observations);
    expect(revised.data.count).toBe(key!.revisions);
    const revisions = revised.data.revisions as Array<Record<string, unknown>> | null;
    if (key!.revisions <= 24) {
      expect(revisions).toHaveLength(key!.revisions);
      for (const r of revisions!) {
        expect(r.old_value).not.toBe(r.new_value);
        expect((r.old_observed_at as string) < (r.new_observed_at as string)).toBe(true);
      }
    } else {
      expect(revisions).toBeNull();
      expect(revised.data.link).toContain('/api/v1/observations/revisions?series=testvendor.PAYEMS');
    }
    expect(events.every((e) => !e.public)).toBe(true);
  });

  it('reads the chain through openEventLog: pages in order, resume after any id, 410-style refusal of unknown ids', async () => {
    const log = openEventLog(layout());
    expect(log.snapshots()).toEqual([first, second]);
    const all = [...eventsOf(first), ...eventsOf(second)];
    expect(await log.after(null, 100_000)).toEqual(all);
    const paged: ReleaseEvent[] = [];
    let after: string | null = null;
    for (;;) {
      const page = await log.read(after, 7);
      if (page.events.length === 0) break;
      paged.push(...page.events);
      after = page.next_after;
    }
    expect(paged).toEqual(all);
    const middle = all[Math.floor(all.length / 2)]!;
    expect(await log.after(middle.id, 100_000)).toEqual(all.slice(all.indexOf(middle) + 1));
    expect(log.end()).toBe(`${second}:${eventsOf(second).length}`);
    expect(await log.after(log.end(), 10)).toEqual([]);
    // A filter looks at every event but returns only those it takes.
    const page = await log.read(null, 1000, (e) => e.public);
    expect(page.events).toEqual(all.filter((e) => e.public));
    await expect(log.after('20200101T000000Z-00000000:1', 10)).rejects.toBeInstanceOf(EventGoneError);
    await expect(log.after(`${second}:999`, 10)).rejects.toBeInstanceOf(EventGoneError);
  });
});
