import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SnapshotDb } from '../../../src/query/snapshot-db.ts';
import { resolveLayout } from '../../../src/store/layout.ts';
import { readCurrentId, readManifest } from '../../../src/store/manifest.ts';
import { REPO_ROOT, SHARED_DATA } from '../../helpers/paths.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { createRealSnapshot, REAL_DATA_STEPS, type SnapshotFixture } from '../../helpers/snapshot-fixture.ts';
import { hashTree, readLines, readStderrMessages, splitCsvLine } from './store-files.ts';

const shared = (path: string) => join(SHARED_DATA, path);
const MONTHS = 'January February March April May June July August September October November December'.split(
  ' ',
);

interface EcbFile {
  /** `<CUR> <YYYY-MM-DD>` to the rate as written. */
  rates: Map<string, number>;
  dates: string[];
}

/** The euro reference rates of eurofxref-hist.csv, read straight from the text. */
function readEcbHistory(): EcbFile {
  const [header, ...rows] = readLines(shared('ecb/eurofxref-hist.csv'));
  const columns = header!.split(',');
  const rates = new Map<string, number>();
  const dates: string[] = [];
  for (const row of rows) {
    const cells = row.split(',');
    const date = cells[0]!;
    dates.push(date);
    columns.forEach((currency, i) => {
      const cell = cells[i]?.trim() ?? '';
      if (i > 0 && currency !== '' && cell !== 'N/A' && cell !== '')
        rates.set(`${currency} ${date}`, Number(cell));
    });
  }
  return { rates, dates: dates.sort() };
}

/** The rates of the single-day CSV (`13 April 2026, 1.1684, ...`) and the daily gesmes XML. */
function readEcbDailyFiles(): Map<string, number> {
  const rates = new Map<string, number>();
  const [header, row] = readLines(shared('ecb/eurofxref.csv'));
  const columns = header!.split(',').map((c) => c.trim());
  const cells = row!.split(',').map((c) => c.trim());
  const [day, month, year] = cells[0]!.split(' ');
  const date = `${year}-${String(MONTHS.indexOf(month!) + 1).padStart(2, '0')}-${day!.padStart(2, '0')}`;
  columns.forEach((currency, i) => {
    if (i > 0 && currency !== '' && cells[i] !== 'N/A') rates.set(`${currency} ${date}`, Number(cells[i]));
  });
  const xml = readFileSync(shared('ecb/eurofxref-daily.xml'), 'utf8');
  for (const [, time, body] of xml.matchAll(/<Cube time='([^']+)'>([\s\S]*?)<\/Cube>/g)) {
    for (const [, currency, rate] of body!.matchAll(/<Cube currency='([A-Z]{3})' rate='([^']+)'\/>/g)) {
      rates.set(`${currency} ${time}`, Number(rate));
    }
  }
  return rates;
}

/** The value a FRED download gives for one date (`observation_date,<ID>` or `DATE,...`). */
function readFredValue(file: string, date: string): number {
  const row = readLines(shared(file)).find((line) => line.startsWith(`${date},`));
  if (row === undefined) throw new Error(`${file} has no row for ${date}`);
  return Number(row.split(',')[1]);
}

describe('the real publisher files through ingest, publish and verify', () => {
  let fixture: SnapshotFixture;
  let db: SnapshotDb;

  beforeAll(async () => {
    fixture = await createRealSnapshot();
    db = await fixture.open();
  });
  afterAll(async () => {
    await db?.close();
    fixture?.remove();
  });

  const observation = (seriesKey: string, period: string) =>
    db.query<{
      id: string;
      value: number;
      revision_number: number;
      supersedes_id: string | null;
      observed_at: string;
      observed_at_method: string;
      source_ref: string;
    }>(
      `SELECT id, value, revision_number, supersedes_id, source_ref, observed_at_method,
              strftime(observed_at, '%Y-%m-%dT%H:%M:%SZ') AS observed_at
         FROM observations WHERE series_key = $key AND period = $period ORDER BY revision_number`,
      { key: seriesKey, period },
    );

  it('is a copy of its own of the snapshot made once per state of the inputs (test/helpers/fixture-cache.ts)', async () => {
    const again = await createRealSnapshot();
    try {
      expect(again.snapshotId).toBe(fixture.snapshotId);
      expect(again.dataDir).not.toBe(fixture.dataDir);
      expect(hashTree(again.dataDir)).toEqual(hashTree(fixture.dataDir));
    } finally {
      again.remove();
    }
  });

  it('publishes a snapshot that mmds verify accepts', async () => {
    expect(readCurrentId(resolveLayout(fixture.dataDir))).toBe(fixture.snapshotId);
    const verify = await runMmds(['verify'], fixture.env);
    expect(readStderrMessages(verify.stderr)).toEqual([]);
    expect(verify.code).toBe(0);
    expect(verify.stdout).toContain(`current ${fixture.snapshotId}: 0 error(s)`);
  });

  it('adds nothing when every file is ingested again, and the publish leaves CURRENT alone', async () => {
    const before = hashTree(fixture.dataDir);
    for (const step of REAL_DATA_STEPS) {
      const run = await runMmds(['--json', 'ingest', ...step], fixture.env);
      expect(run.code, `${step.join(' ')}: ${run.stderr}`).toBe(0);
      const result = JSON.parse(run.stdout) as {
        batch_id: string | null;
        tables: Record<string, { added: number; unchanged: number }>;
      };
      expect(result.batch_id, step.join(' ')).toBeNull();
      for (const [table, counts] of Object.entries(result.tables)) {
        expect(counts.added, `${step.join(' ')}: ${table}`).toBe(0);
      }
    }
    // The human-readable line says so too.
    const text = await runMmds(['ingest', ...REAL_DATA_STEPS[0]!], fixture.env);
    expect(text.stdout).toContain('nothing new, store unchanged');

    const publish = await runMmds(['publish'], fixture.env);
    expect(publish.code, publish.stderr).toBe(0);
    expect(publish.stdout).toContain(`nothing new since snapshot ${fixture.snapshotId}; CURRENT unchanged`);
    expect(readCurrentId(resolveLayout(fixture.dataDir))).toBe(fixture.snapshotId);
    expect(hashTree(fixture.dataDir)).toEqual(before);
  });

  it('holds the ECB USD rate of the first and the last day of eurofxref-hist.csv', async () => {
    const { rates, dates } = readEcbHistory();
    const first = dates[0]!;
    const last = dates.at(-1)!;
    expect(first < last).toBe(true);
    for (const date of [first, last]) {
      const rows = await observation('ecb.USD', date);
      expect(rows, date).toHaveLength(1);
      expect(rows[0]!.value).toBe(rates.get(`USD ${date}`));
      expect(rows[0]!.revision_number).toBe(1);
    }
    // About 14:30 Frankfurt before 1 July 2016 (CET in January), about 16:00 from then on (CEST in April).
    expect(first).toBe('1999-01-04');
    expect(last).toBe('2026-04-13');
    for (const [date, observedAt] of [
      [first, '1999-01-04T13:30:00Z'],
      ['2016-06-30', '2016-06-30T12:30:00Z'],
      ['2016-07-01', '2016-07-01T14:00:00Z'],
      [last, '2026-04-13T14:00:00Z'],
    ] as const) {
      expect((await observation('ecb.USD', date))[0], date).toMatchObject({
        observed_at: observedAt,
        observed_at_method: 'release_calendar',
      });
    }
  });

  it('counts one observation per ECB cell that is not N/A, and one COT report per CFTC row', async () => {
    const history = readEcbHistory().rates;
    const daily = readEcbDailyFiles();
    for (const [key, value] of daily) expect(history.get(key) ?? value, key).toBe(value);
    const cells = new Set([...history.keys(), ...daily.keys()]);
    const [ecb] = await db.query<{ n: number }>(
      "SELECT count(*)::INTEGER AS n FROM observations WHERE series_key LIKE 'ecb.%'",
    );
    expect(ecb!.n).toBe(cells.size);

    const cftcFiles = REAL_DATA_STEPS.find(([source]) => source === 'cftc')!.slice(1);
    const cftcRows = cftcFiles.reduce((sum, file) => sum + readLines(file).length - 1, 0);
    const manifest = readManifest(resolveLayout(fixture.dataDir), fixture.snapshotId);
    expect(manifest.tables.cot_reports!.rows).toBe(cftcRows);
    expect(cftcRows).toBeGreaterThan(6000);
  });

  it('records in the manifest the row count of every Parquet file', async () => {
    const manifest = readManifest(resolveLayout(fixture.dataDir), fixture.snapshotId);
    for (const [table, entry] of Object.entries(manifest.tables)) {
      const [row] = await db.query<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM "${table}"`);
      expect(row!.n, table).toBe(entry.rows);
    }
    expect(manifest.tables.observations!.rows).toBeGreaterThan(200_000);
  });

  it("holds a COT market's open interest as the legacy file gives it for one week", async () => {
    const [header, ...rows] = readLines(shared('cftc/legacy_futures_only_2025_annual.txt')).map(splitCsvLine);
    const column = (name: string) => header!.findIndex((h) => h.trim() === name);
    const code = column('CFTC Contract Market Code');
    const date = column('As of Date in Form YYYY-MM-DD');
    const interest = column('Open Interest (All)');
    const row = rows.find((cells) => cells[code]!.trim() === '088691' && cells[date] === '2025-03-04');
    expect(row).toBeDefined();
    const reports = await db.query<{ open_interest: number; market_name: string; revision_number: number }>(
      `SELECT open_interest, market_name, revision_number FROM cot_reports
        WHERE series_key = 'cftc.088691.legacy' AND period = '2025-03-04'`,
    );
    expect(reports).toEqual([
      {
        open_interest: Number(row![interest]!.trim()),
        market_name: row![0]!.trim(),
        revision_number: 1,
      },
    ]);
  });

  it('holds the CPI-U index of the datahub CSV, dated by the CPI release or, before the calendar, by --collected-at', async () => {
    const lines = readLines(shared('bls/datahub_cpi-us_cpiai.csv'));
    const step = REAL_DATA_STEPS.find((s) => s[1]?.endsWith('datahub_cpi-us_cpiai.csv'))!;
    const collectedAt = step[step.indexOf('--collected-at') + 1];
    const releaseOf = (month: string) => {
      const row = readLines(join(REPO_ROOT, 'data/calendars/bls_release_dates.csv')).find((line) =>
        line.startsWith(`Consumer Price Index,${month},`),
      );
      if (row === undefined) return undefined;
      const [, , date, time] = row.split(',');
      return { date: date!, time: time! };
    };
    const [first, last] = [lines[1]!, lines.at(-1)!].map((line) => line.split(','));
    const firstMonth = first![0]!.slice(0, 7);
    const lastMonth = last![0]!.slice(0, 7);
    // 1913 is long before the shipped calendar (2010 on): the collection time dates it.
    expect(releaseOf(firstMonth)).toBeUndefined();
    expect(await observation('bls.CUUR0000SA0', firstMonth)).toMatchObject([
      {
        value: Number(first![1]),
        revision_number: 1,
        observed_at: collectedAt,
        observed_at_method: 'collected',
      },
    ]);
    // May 2026: the CPI release of 2026-06-10 at 08:30 New York (EDT, UTC-4).
    expect(releaseOf(lastMonth)).toEqual({ date: '2026-06-10', time: '08:30' });
    expect(await observation('bls.CUUR0000SA0', lastMonth)).toMatchObject([
      {
        value: Number(last![1]),
        revision_number: 1,
        observed_at: '2026-06-10T12:30:00Z',
        observed_at_method: 'release_calendar',
      },
    ]);
  });

  it('keeps both PAYEMS vintages of 2025-07 as a revision chain', async () => {
    const first = readFredValue('bls/fred_PAYEMS_vintage_2025-08-02.csv', '2025-07-01');
    const later = readFredValue(
      'bls/fred_PAYEMS_vintage_latest-2026-09_trimmed_2023-07_onward.csv',
      '2025-07-01',
    );
    expect(first).not.toBe(later);
    const rows = await observation('bls.CES0000000001', '2025-07');
    expect(rows).toHaveLength(2);
    const [one, two] = rows;
    expect(one).toMatchObject({
      value: first,
      revision_number: 1,
      supersedes_id: null,
      // The vintage of the July 2025 Employment Situation: 2025-08-01 08:30 New York.
      observed_at: '2025-08-01T12:30:00Z',
      observed_at_method: 'vintage',
    });
    expect(two).toMatchObject({
      value: later,
      revision_number: 2,
      supersedes_id: one!.id,
      observed_at: '2026-10-02T12:30:00Z',
      observed_at_method: 'vintage',
    });
    expect(one!.source_ref).toContain('fred_PAYEMS_vintage_2025-08-02.csv');
  });
});
