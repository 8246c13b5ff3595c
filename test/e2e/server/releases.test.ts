import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ICAL from 'ical.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { addDays, zonedTimeToUtc } from '../../../src/lib/zoned-time.ts';
import type { SnapshotDb } from '../../../src/query/snapshot-db.ts';
import { REPO_ROOT } from '../../helpers/paths.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import { createRealSnapshot, type SnapshotFixture } from '../../helpers/snapshot-fixture.ts';

/**
 * /api/v1/releases and /api/v1/releases.ics over HTTP on a snapshot of every real file of
 * ../shared/data, with the clock set (only Date is faked; timers run). Scheduled releases are
 * compared with the calendar files read here as plain CSV, past ones with the snapshot's facts.
 */

interface Row {
  id: string;
  source: string;
  name: string;
  status: 'past' | 'scheduled';
  released_at: string | null;
  scheduled_at: string | null;
  time_zone: string;
  local_time: string;
  reference_period: string;
  series: string[];
  series_count: number;
  value_count: number | null;
  first_releases: number | null;
  revisions: number | null;
  basis: string;
  note: string | null;
  source_url: string | null;
}
interface Body {
  data: Row[];
  meta: Record<string, unknown>;
  error?: { code: string; message: string };
}

/** The calendar files as plain CSV (no quoted commas in them but the BLS/CFTC source texts, which we keep whole). */
function readCsv(file: string): Record<string, string>[] {
  const [header, ...lines] = readFileSync(join(REPO_ROOT, 'data/calendars', file), 'utf8')
    .trim()
    .split('\n');
  const names = header!.split(',');
  return lines.map((line) => {
    const cells = line.split(',');
    // The last column (source_url) may hold commas: join what is left.
    const row: Record<string, string> = {};
    names.forEach((name, i) => {
      row[name] = i === names.length - 1 ? cells.slice(i).join(',') : cells[i]!;
    });
    return row;
  });
}

const CFTC_ROWS = readCsv('cftc_cot_release_exceptions.csv');
const BLS_ROWS = readCsv('bls_release_dates.csv');
const NOW = '2026-11-23T12:00:00Z';

describe('/api/v1/releases on the real data', () => {
  let fixture: SnapshotFixture;
  let db: SnapshotDb;
  let server: TestServer;

  const get = async (path: string): Promise<{ status: number; body: Body; type: string }> => {
    const response = await fetch(`${server.url}${path}`);
    return {
      status: response.status,
      body: (await response.json()) as Body,
      type: response.headers.get('content-type') ?? '',
    };
  };
  const setNow = (instant: string) => vi.setSystemTime(new Date(instant));

  beforeAll(async () => {
    fixture = await createRealSnapshot();
    db = await fixture.open();
    vi.useFakeTimers({ toFake: ['Date'] });
    setNow(NOW);
    server = await startTestServer({ dataDir: fixture.dataDir, anonymousLimit: 10_000 });
  }, 240_000);

  afterAll(async () => {
    vi.useRealTimers();
    await server?.close();
    await db?.close();
    fixture?.remove();
  });

  it('schedules the COT reports with the exceptions file and the holiday-shifted rule', async () => {
    setNow(NOW);
    const { status, body } = await get('/api/v1/releases?source=cftc');
    expect(status).toBe(200);
    const scheduled = body.data.filter((row) => row.status === 'scheduled');
    // Thanksgiving week: the exceptions file moves report 2026-11-24 to Monday 2026-11-30.
    const thanksgiving = CFTC_ROWS.find((row) => row.report_date === '2026-11-24')!;
    const moved = scheduled.find((row) => row.reference_period === '2026-11-24')!;
    expect(moved.scheduled_at).toBe(zonedTimeToUtc(thanksgiving.release_date!, '15:30', 'America/New_York'));
    expect(moved.scheduled_at).toBe('2026-11-30T20:30:00Z');
    expect(moved).toMatchObject({
      basis: 'exception',
      source_url: thanksgiving.source_url,
      time_zone: 'America/New_York',
      local_time: '2026-11-30T15:30:00',
    });
    expect(scheduled.some((row) => row.scheduled_at?.startsWith('2026-11-27'))).toBe(false);
    // Past the file (report dates from 2026-12-29): the rule, shifted past New Year's Day 2027.
    const newYear = scheduled.find((row) => row.reference_period === '2026-12-29')!;
    expect(newYear).toMatchObject({ scheduled_at: '2027-01-04T20:30:00Z', basis: 'rule', source_url: null });
    expect(newYear.note).toContain("New Year's Day");
    // A plain week: Friday 15:30 New York.
    expect(scheduled.find((row) => row.reference_period === '2026-12-01')).toMatchObject({
      scheduled_at: '2026-12-04T20:30:00Z',
      basis: 'rule',
      note: null,
    });
    // Every exception row after now is there, on its day; nothing is scheduled past 91 days.
    const horizon = Date.parse(NOW) + 91 * 86_400_000;
    for (const row of CFTC_ROWS.filter((r) => r.release_date! > '2026-11-23')) {
      const found = scheduled.find((s) => s.reference_period === row.report_date);
      expect(found?.scheduled_at, row.report_date).toBe(
        zonedTimeToUtc(row.release_date!, row.release_time_et || '15:30', 'America/New_York'),
      );
    }
    for (const row of scheduled) expect(Date.parse(row.scheduled_at!)).toBeLessThanOrEqual(horizon);
    expect(body.meta).toMatchObject({ now: NOW, sources: ['cftc'], to: null });
  });

  it('lists the 2025 shutdown catch-up with the dates of the plan the file follows', async () => {
    setNow('2025-11-20T12:00:00Z');
    const { body } = await get('/api/v1/releases?source=cftc');
    const scheduled = body.data.filter((row) => row.status === 'scheduled');
    const expected = CFTC_ROWS.filter(
      (row) => row.release_date! >= '2025-11-21' && row.release_date! <= '2026-02-18',
    );
    expect(expected.length).toBeGreaterThan(10);
    for (const row of expected) {
      const found = scheduled.find((s) => s.reference_period === row.report_date);
      expect(found, row.report_date).toMatchObject({
        scheduled_at: zonedTimeToUtc(row.release_date!, row.release_time_et || '15:30', 'America/New_York'),
        basis: 'exception',
        source_url: row.source_url,
      });
    }
    // The Monday as-of date of the catch-up is the report named, not its Tuesday.
    expect(scheduled.some((s) => s.reference_period === '2025-11-10')).toBe(true);
    expect(scheduled.some((s) => s.reference_period === '2025-11-11')).toBe(false);
    setNow(NOW);
  });

  it('lists past COT releases from the store, what each carried and when (TFF 2026 as the file says)', async () => {
    setNow(NOW);
    const { body } = await get('/api/v1/releases?source=cftc&from=2026-01&to=2026-03');
    const expected = await db.query<{ at: string; n: number; first: number; series: number }>(
      `SELECT strftime(observed_at, '%Y-%m-%dT%H:%M:%SZ') AS at, count(*)::INTEGER AS n,
              count(*) FILTER (WHERE revision_number = 1)::INTEGER AS first,
              count(DISTINCT series_key)::INTEGER AS series
         FROM cot_reports WHERE observed_at >= '2026-01-01' AND observed_at < '2026-04-01'
        GROUP BY 1 ORDER BY 1`,
    );
    expect(expected.length).toBeGreaterThan(5);
    expect(
      body.data.map((row) => [row.released_at, row.value_count, row.first_releases, row.series_count]),
    ).toEqual(expected.map((row) => [row.at, row.n, row.first, row.series]));
    for (const row of body.data) {
      expect(row).toMatchObject({ status: 'past', basis: 'store', scheduled_at: null });
      expect(row.revisions).toBe(row.value_count! - row.first_releases!);
      expect(row.local_time.slice(11)).toBe('15:30:00');
    }
    // Report 2026-01-06 came out on its Friday (the calendar file), not on a superseded plan's date.
    expect(body.data.find((row) => row.reference_period === '2026-01-06')?.released_at).toBe(
      '2026-01-09T20:30:00Z',
    );
  });

  it('schedules BLS releases from the calendar file rows, with their source URLs, and ECB on TARGET days', async () => {
    setNow(NOW);
    const { body } = await get('/api/v1/releases?source=bls');
    const scheduled = body.data.filter((row) => row.status === 'scheduled');
    // The catalog's BLS series belong to Employment Situation, CPI and State Employment (no PPI).
    const expected = BLS_ROWS.filter(
      (row) =>
        ['Employment Situation', 'Consumer Price Index', 'State Employment and Unemployment'].includes(
          row.release!,
        ) && zonedTimeToUtc(row.release_date!, row.release_time_et!, 'America/New_York') > NOW,
    );
    expected.sort((a, b) => a.release_date!.localeCompare(b.release_date!));
    expect(
      scheduled.map((row) => [row.name, row.reference_period, row.scheduled_at, row.source_url]),
    ).toEqual(
      expected.map((row) => [
        row.release,
        row.reference_period,
        zonedTimeToUtc(row.release_date!, row.release_time_et!, 'America/New_York'),
        row.source_url,
      ]),
    );
    expect(scheduled.map((row) => row.scheduled_at)).toEqual([
      '2026-12-04T13:30:00Z',
      '2026-12-10T13:30:00Z',
    ]);
    expect(
      scheduled.every((row) => row.basis === 'calendar_file' && row.local_time.endsWith('T08:30:00')),
    ).toBe(true);

    setNow('2026-03-27T12:00:00Z');
    const ecb = await get('/api/v1/releases?source=ecb&from=2026-03-28');
    const days = ecb.body.data.filter((row) => row.status === 'scheduled').map((row) => row.reference_period);
    // Good Friday (04-03) and Easter Monday (04-06) 2026 are TARGET closing days.
    expect(days.slice(0, 6)).toEqual([
      '2026-03-30',
      '2026-03-31',
      '2026-04-01',
      '2026-04-02',
      '2026-04-07',
      '2026-04-08',
    ]);
    const first = ecb.body.data.find((row) => row.reference_period === '2026-03-30')!;
    // 16:00 in Frankfurt: CEST from 2026-03-29, so 14:00 UTC.
    expect(first).toMatchObject({
      scheduled_at: '2026-03-30T14:00:00Z',
      local_time: '2026-03-30T16:00:00',
      time_zone: 'Europe/Berlin',
    });
    setNow(NOW);
  });

  it('filters by series key or slug and by COT market, and counts only what the series carried', async () => {
    setNow(NOW);
    const bySlug = await get('/api/v1/releases?series=nonfarm-payrolls&from=2025-01&to=2026-12');
    const byKey = await get('/api/v1/releases?series=bls.CES0000000001&from=2025-01&to=2026-12');
    expect(bySlug.body.data).toEqual(byKey.body.data);
    expect(bySlug.body.data.map((row) => [row.status, row.released_at ?? row.scheduled_at])).toEqual([
      ['past', '2025-08-01T12:30:00Z'],
      ['past', '2026-10-02T12:30:00Z'],
      ['scheduled', '2026-12-04T13:30:00Z'],
    ]);
    for (const row of bySlug.body.data) expect(row.series).toEqual(['bls.CES0000000001']);
    // Only `to`: the 92 days before its end (the legacy COT reports of early 2025).
    const older = await get('/api/v1/releases?source=cftc&to=2025-03');
    expect(older.body.meta).toMatchObject({ from: addDays('2025-03-31', -92), to: '2025-03-31' });
    expect(older.body.data.length).toBeGreaterThan(5);
    for (const row of older.body.data) {
      expect(row.status).toBe('past');
      expect(row.released_at! >= '2024-12-29T00:00:00Z' && row.released_at! <= '2025-03-31T23:59:59Z').toBe(
        true,
      );
    }
    const gold = await get('/api/v1/releases?series=gold');
    expect(gold.status).toBe(200);
    expect(gold.body.data.length).toBeGreaterThan(0);
    for (const row of gold.body.data)
      expect(row.series.every((key) => key.startsWith('cftc.088691.'))).toBe(true);
  });

  it('refuses bad input with the envelope naming the parameter and what is accepted', async () => {
    const cases: [string, number, RegExp][] = [
      ['source=fred', 400, /"source".*bls, cftc, ecb/],
      ['source=NOPE', 400, /"source"/],
      ['series=bls.NO_SUCH_SERIES', 404, /series bls\.NO_SUCH_SERIES not found/],
      ['series=%3Cscript%3E', 400, /"series"/],
      ['from=2025-13', 400, /"from".*real period/],
      ['from=2026-06&to=2026-01', 400, /"from"/],
      ['from=2010&to=2026', 400, /"from".*at most 1096 days/],
      ['limit=5', 400, /"limit".*source, series, from, to/],
      ['source=cftc&source=ecb', 400, /"source".*single value/],
    ];
    for (const [query, status, message] of cases) {
      for (const path of ['/api/v1/releases', '/api/v1/releases.ics']) {
        const { status: got, body, type } = await get(`${path}?${query}`);
        expect(got, `${path}?${query}`).toBe(status);
        expect(type).toMatch(/^application\/json/);
        expect(body.error?.message, query).toMatch(message);
      }
    }
  });

  it('answers the same releases as iCalendar that ical.js parses back', async () => {
    setNow(NOW);
    for (const query of ['', '?source=cftc', '?series=nonfarm-payrolls&from=2025-01']) {
      const json = await get(`/api/v1/releases${query}`);
      const response = await fetch(`${server.url}/api/v1/releases.ics${query}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/calendar; charset=utf-8');
      const text = await response.text();
      expect(text.startsWith('BEGIN:VCALENDAR\r\n')).toBe(true);
      const calendar = new ICAL.Component(ICAL.parse(text));
      expect(calendar.getFirstPropertyValue('version')).toBe('2.0');
      const events = calendar.getAllSubcomponents('vevent').map((vevent) => new ICAL.Event(vevent));
      expect(events.length).toBe(json.body.data.length);
      expect(events.length).toBeGreaterThan(0);
      events.forEach((event, i) => {
        const row = json.body.data[i]!;
        expect(event.uid).toBe(`${row.id}@mmds`);
        expect(event.startDate.toJSDate().toISOString().replace('.000Z', 'Z')).toBe(
          row.released_at ?? row.scheduled_at,
        );
        expect(event.startDate.zone.tzid).toBe('UTC');
        expect(event.summary).toContain(row.name);
        expect(event.description).toContain(row.id);
        const url = event.component.getFirstPropertyValue('url');
        if (row.source_url?.startsWith('github:')) expect(url).toMatch(/^https:\/\/github\.com\//);
        if (row.source_url === null) expect(url).toBeNull();
      });
      expect(new Set(events.map((e) => e.uid)).size).toBe(events.length);
    }
  });

  it('puts the next scheduled release on /status per source and on /macro per series', async () => {
    setNow(NOW);
    const status = (await get('/api/v1/status')).body as unknown as {
      data: { sources: Record<string, unknown>[] };
    };
    const byId = new Map(status.data.sources.map((s) => [s.id as string, s]));
    expect(byId.get('cftc')).toMatchObject({
      next_release_due: '2026-11-30T20:30:00Z',
      next_release_basis: 'calendar',
      next_release: {
        scheduled_at: '2026-11-30T20:30:00Z',
        basis: 'exception',
        reference_period: '2026-11-24',
      },
    });
    expect(byId.get('ecb')).toMatchObject({
      next_release_due: '2026-11-23T15:00:00Z',
      next_release: { local_time: '2026-11-23T16:00:00', time_zone: 'Europe/Berlin', basis: 'rule' },
    });
    expect(byId.get('bls')).toMatchObject({
      next_release_due: '2026-12-04T13:30:00Z',
      next_release_basis: 'calendar',
    });
    // Sources without a calendar keep the cadence estimate, labelled as one.
    const iso = byId.get('iso')!;
    expect(iso.next_release).toBeNull();
    expect(iso.next_release_basis).toBe(iso.next_release_due === null ? null : 'estimate');

    const macro = (await get('/api/v1/macro')).body as unknown as { data: Record<string, unknown>[] };
    const bySlug = new Map(macro.data.map((s) => [s.slug as string, s]));
    expect(bySlug.get('nonfarm-payrolls')?.next_release).toMatchObject({
      name: 'Employment Situation',
      scheduled_at: '2026-12-04T13:30:00Z',
      local_time: '2026-12-04T08:30:00',
      basis: 'calendar_file',
    });
    expect(bySlug.get('cpi-u-all-items-nsa')?.next_release).toMatchObject({
      scheduled_at: '2026-12-10T13:30:00Z',
    });
    // The State Employment rows of the file end with the 2026-01-27 release: no invented date.
    expect(bySlug.get('north-dakota-mining-logging-employment')?.next_release).toBeNull();
  });
});
