import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readObservationHistory } from '../../../src/query/history.ts';
import type { SnapshotDb } from '../../../src/query/snapshot-db.ts';
import { readMacroPage } from '../../../src/site/data/macro-pages.ts';
import { readWholeHistory } from '../../../src/site/data/site-context.ts';
import { renderRevisionBars } from '../../../src/site/revisions-bars.ts';
import { revisionBarPoints } from '../../../src/site/revisions-view.ts';
import { SAMPLE_DATA } from '../../helpers/paths.ts';
import { FIXTURE_NOW } from '../../helpers/run-cli.ts';
import { createSampleSnapshot, type SnapshotFixture } from '../../helpers/snapshot-fixture.ts';

/**
 * The revisions view of a macro series page (docs/api/revisions.md, "On the site"): the size of
 * each period's revision (value in force − first print) as bars, on the sample's two FRED
 * vintages of PAYEMS, checked against the two files read here.
 */

/** A FRED download as month → value (`DATE,PAYEMS`, the month's first day). */
function readFred(file: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of readFileSync(join(SAMPLE_DATA, 'bls', file), 'utf8')
    .split(/\r?\n/)
    .slice(1)) {
    const [date, value] = line.split(',');
    if (date && value) out.set(date.slice(0, 7), Number(value));
  }
  return out;
}

describe('the revisions view of a macro series page', () => {
  let fixture: SnapshotFixture;
  let db: SnapshotDb;
  const early = readFred('fred_PAYEMS_vintage_2025-08-02.csv');
  const late = readFred('fred_PAYEMS_vintage_latest-2026-09_trimmed_2023-07_onward.csv');

  beforeAll(async () => {
    fixture = await createSampleSnapshot();
    db = await fixture.open();
  }, 600_000);
  afterAll(async () => {
    await db?.close();
    fixture?.remove();
  });

  it('one bar per period from the first revised one: latest − first print, as the two files give it', async () => {
    const rows = await readWholeHistory((query) => readObservationHistory(db, 'bls.CES0000000001', query));
    const points = revisionBarPoints(rows);
    // The later file starts at 2023-07: every month of both files was revised; later months are new.
    const months = [...late.keys()].sort();
    expect(points.map((p) => p.x)).toEqual(months);
    expect(points.map((p) => p.y)).toEqual(
      months.map((m) => (early.has(m) ? late.get(m)! - early.get(m)! : 0)),
    );
    expect(points.filter((p) => p.y !== 0)).toHaveLength(25);
  });

  it('draws them as bars from a zero line, wide and narrow, with a text alternative', () => {
    const points = [
      { x: '2025-05', y: -954 },
      { x: '2025-06', y: 0 },
      { x: '2025-07', y: 120 },
    ];
    const svg = renderRevisionBars({
      id: 'test',
      title: 'Payrolls: size of revisions',
      yLabel: 'In force − first print (thousands of persons)',
      xLabel: 'Period',
      points,
    });
    const drawings = svg.split('</svg>').filter((part) => part !== '');
    expect(drawings).toHaveLength(2);
    expect(drawings[0]).toContain('class="chart chart-wide"');
    expect(drawings[1]).toContain('class="chart chart-narrow"');
    for (const drawing of drawings) {
      const bars = [
        ...drawing.matchAll(/<rect class="bar" x="[^"]+" y="([^"]+)" width="[^"]+" height="([^"]+)"/g),
      ];
      expect(bars).toHaveLength(3);
      const zero = Number(/<line class="axis" x1="[^"]+" x2="[^"]+" y1="([^"]+)"/.exec(drawing)![1]);
      const [down, flat, up] = bars.map(([, y, h]) => ({ y: Number(y), h: Number(h) }));
      // Revised down: from the zero line downwards; up: ending on it; never revised: no height.
      expect(down!.y).toBeCloseTo(zero, 0);
      expect(down!.h).toBeGreaterThan(up!.h);
      expect(up!.y + up!.h).toBeCloseTo(zero, 0);
      expect(flat!.h).toBe(0);
      expect(drawing).toContain('<desc id=');
      expect(drawing).toMatch(/2025-05: -954|2025-05: −954/);
    }
  });

  it('the macro series page of payrolls carries the bar chart', async () => {
    const page = await readMacroPage({ db, now: FIXTURE_NOW }, 'nonfarm-payrolls');
    expect(page.revisionChart).not.toBeNull();
    expect((page.revisionChart!.match(/<rect class="bar"/g) ?? []).length).toBe(2 * late.size);
  });
});
