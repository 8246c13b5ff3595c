import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CALENDAR_FILES, DEFAULT_CALENDAR_DIR, loadCalendars } from '../../../src/calendar/load-calendars.ts';
import { REPO_ROOT, SHARED_DATA } from '../../helpers/paths.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';
import { openTestConnection } from './calendar-fixture.ts';

const connection = await openTestConnection();
const temp = createTempDir('calendars-test-');
afterAll(() => temp.remove());

const CFTC_HEADER = 'report_date,release_date,release_time_et,reason,source_url';
const BLS_HEADER = 'release,reference_period,release_date,release_time_et,source_url';
const GOOD_BLS_ROW = 'Employment Situation,2025-11,2025-12-16,08:30,https://www.bls.gov/';
const GOOD_CFTC_ROW = '2025-01-07,2025-01-13,15:30,closure,https://www.cftc.gov/';

/** Writes a calendar directory with the given file contents and returns its path. */
function writeCalendarDir(name: string, cftc: string[], bls: string[]): string {
  const dir = join(temp.dir, name);
  mkdirSync(dir);
  writeFileSync(join(dir, CALENDAR_FILES.cftc), `${[CFTC_HEADER, ...cftc].join('\n')}\n`);
  writeFileSync(join(dir, CALENDAR_FILES.bls), `${[BLS_HEADER, ...bls].join('\n')}\n`);
  return dir;
}

describe('loadCalendars', () => {
  it('DEFAULT_CALENDAR_DIR is the repository data/calendars/', () => {
    expect(DEFAULT_CALENDAR_DIR).toBe(join(REPO_ROOT, 'data/calendars/'));
  });

  it('loads the shipped files into working calendars', async () => {
    const calendars = await loadCalendars(connection, DEFAULT_CALENDAR_DIR);
    expect(calendars.cftc.releaseOf('2025-01-07').observed_at).toBe('2025-01-13T20:30:00Z');
    expect(calendars.bls.releaseOf('Employment Situation', '2025-11')?.observed_at).toBe(
      '2025-12-16T13:30:00Z',
    );
  });

  it.each(Object.values(CALENDAR_FILES))(
    '%s is the shared compilation, verbatim, with the README sha256',
    (name) => {
      const shipped = readFileSync(join(DEFAULT_CALENDAR_DIR, name));
      expect(shipped.equals(readFileSync(join(SHARED_DATA, 'calendars', name)))).toBe(true);
      const readme = readFileSync(join(DEFAULT_CALENDAR_DIR, 'README.md'), 'utf8');
      expect(readme).toContain(`\`${createHash('sha256').update(shipped).digest('hex')}\``);
    },
  );
});

/** Bad rows and the error they must raise: the file name and the line, then what is wrong. */
const BAD_FILES = [
  {
    name: 'impossible-date',
    cftc: [GOOD_CFTC_ROW, '2025-01-14,2025-02-30,15:30,closure,https://www.cftc.gov/'],
    bls: [GOOD_BLS_ROW],
    error: /cftc_cot_release_exceptions\.csv:3: release_date: expected a date YYYY-MM-DD/,
  },
  {
    name: 'release-before-report',
    cftc: ['2025-01-14,2025-01-10,15:30,closure,https://www.cftc.gov/'],
    bls: [GOOD_BLS_ROW],
    error: /cftc_cot_release_exceptions\.csv:2: release_date must follow report_date/,
  },
  {
    name: 'bad-cftc-time',
    cftc: ['2025-01-14,2025-01-17,3:30 pm,closure,https://www.cftc.gov/'],
    bls: [GOOD_BLS_ROW],
    error: /cftc_cot_release_exceptions\.csv:2: release_time_et: expected a time HH:MM/,
  },
  {
    name: 'unknown-release',
    cftc: [GOOD_CFTC_ROW],
    bls: [GOOD_BLS_ROW, GOOD_BLS_ROW.replace('Employment Situation', 'JOLTS')],
    error: /bls_release_dates\.csv:3: release: /,
  },
  {
    name: 'bad-month',
    cftc: [GOOD_CFTC_ROW],
    bls: [GOOD_BLS_ROW.replace('2025-11', '2025-13')],
    error: /bls_release_dates\.csv:2: reference_period: expected a month YYYY-MM/,
  },
  {
    name: 'released-before-month-ended',
    cftc: [GOOD_CFTC_ROW],
    bls: [GOOD_BLS_ROW.replace('2025-12-16', '2025-11-28')],
    error: /bls_release_dates\.csv:2: release_date must follow the month/,
  },
  {
    name: 'missing-source',
    cftc: [GOOD_CFTC_ROW],
    bls: ['Employment Situation,2025-11,2025-12-16,08:30,'],
    error: /bls_release_dates\.csv:2: source_url: /,
  },
  { name: 'header-only', cftc: [], bls: [GOOD_BLS_ROW], error: /cftc_cot_release_exceptions\.csv: no rows/ },
];

describe('loadCalendars: every row is validated', () => {
  it.each(BAD_FILES)('$name → an error naming file and line', async ({ name, cftc, bls, error }) => {
    await expect(loadCalendars(connection, writeCalendarDir(name, cftc, bls))).rejects.toThrow(error);
  });

  it('accepts a blank CFTC time (unknown) and a good BLS row', async () => {
    const dir = writeCalendarDir(
      'good',
      ['2025-01-14,2025-01-21,,closure,https://www.cftc.gov/'],
      [GOOD_BLS_ROW],
    );
    const calendars = await loadCalendars(connection, dir);
    expect(calendars.cftc.releaseOf('2025-01-14')).toEqual({
      observed_at: '2025-01-21T20:30:00Z',
      method: 'release_calendar',
      note: 'closure; release time not published, 15:30 ET assumed',
    });
  });
});
