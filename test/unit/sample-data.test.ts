import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SAMPLE_DATA, SHARED_DATA } from '../helpers/paths.ts';

/** One row of the table in data/sample/README.md. */
interface Entry {
  file: string;
  bytes: number;
  sha256: string;
  copyOf: string | null;
  linesFrom: string | null;
}

/** The project's own files of data/sample (not publisher data, so not in the table). */
const OWN_FILES = /^(README\.md|pipeline\.json|research\/[a-z0-9-]+\.md)$/;
const MAX_BYTES = 5 * 1024 * 1024;

const readText = (root: string, path: string): string => readFileSync(join(root, path), 'utf8');
const sha256 = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');
const cell = (text: string): string | null => (text === '—' ? null : text.replace(/^`|`$/g, ''));

function readEntries(): Entry[] {
  const rows = readText(SAMPLE_DATA, 'README.md')
    .split('\n')
    .filter((line) => line.startsWith('| `'));
  return rows.map((row) => {
    const [file, bytes, hash, copyOf, linesFrom] = row
      .slice(1, -1)
      .split('|')
      .map((part) => part.trim());
    return {
      file: cell(file!)!,
      bytes: Number(bytes!.replace(/,/g, '')),
      sha256: cell(hash!)!,
      copyOf: cell(copyOf!),
      linesFrom: cell(linesFrom!),
    };
  });
}

function listFilesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

const ENTRIES = readEntries();

describe('data/sample/README.md', () => {
  it('lists every data file of the folder, and only files that exist', () => {
    const listed = ENTRIES.map((entry) => entry.file).sort();
    const onDisk = listFilesUnder(SAMPLE_DATA).filter((file) => !OWN_FILES.test(file));
    expect(listed).toEqual(onDisk);
    expect(new Set(listed).size).toBe(listed.length);
  });

  it.each(ENTRIES.map((entry) => [entry.file, entry] as const))(
    '%s has the size and sha256 the README states',
    (file, entry) => {
      expect(statSync(join(SAMPLE_DATA, file)).size).toBe(entry.bytes);
      expect(sha256(join(SAMPLE_DATA, file))).toBe(entry.sha256);
    },
  );

  it('states the total size, and the folder stays under 5 MB', () => {
    const data = ENTRIES.reduce((sum, entry) => sum + entry.bytes, 0);
    expect(readText(SAMPLE_DATA, 'README.md')).toContain(`Total ${data.toLocaleString('en-US')} bytes`);
    const all = listFilesUnder(SAMPLE_DATA).reduce((sum, f) => sum + statSync(join(SAMPLE_DATA, f)).size, 0);
    expect(all).toBeLessThan(MAX_BYTES);
  });
});

describe('every data file is real', () => {
  it('names a source in ../shared/data for every file', () => {
    for (const entry of ENTRIES) expect(entry.copyOf ?? entry.linesFrom, entry.file).not.toBeNull();
  });

  it.each(ENTRIES.filter((e) => e.copyOf !== null).map((e) => [e.file, e.copyOf!] as const))(
    '%s equals ../shared/data/%s byte for byte',
    (file, original) => {
      expect(sha256(join(SAMPLE_DATA, file))).toBe(sha256(join(SHARED_DATA, original)));
    },
  );

  it.each(ENTRIES.filter((e) => e.linesFrom !== null).map((e) => [e.file, e.linesFrom!] as const))(
    '%s keeps the header and whole lines of ../shared/data/%s, verbatim and in order',
    (file, parent) => {
      const [text, parentText] = [readText(SAMPLE_DATA, file), readText(SHARED_DATA, parent)];
      const lines = text.split('\n');
      const parentLines = parentText.split('\n');
      expect(lines[0]).toBe(parentLines[0]);
      expect(text.endsWith('\n')).toBe(parentText.endsWith('\n'));
      // In order: each kept line is found after the previous one (line endings included).
      let at = 0;
      for (const line of lines.filter((l) => l !== '')) {
        const found = parentLines.indexOf(line, at);
        expect({ line, found: found >= 0 }).toEqual({ line, found: true });
        at = found + 1;
      }
      expect(lines.length).toBeLessThan(parentLines.length);
    },
  );
});

describe('pipeline.json', () => {
  const steps = JSON.parse(readText(SAMPLE_DATA, 'pipeline.json')) as Array<Record<string, unknown>>;

  it('ingests every data file exactly once, and nothing as sample data', () => {
    const files = steps.flatMap((step) => step.files as string[]);
    for (const file of files) expect(existsSync(join(SAMPLE_DATA, file)), file).toBe(true);
    const dataFiles = files.filter((file) => !file.startsWith('../') && file !== 'research').sort();
    expect(dataFiles).toEqual(ENTRIES.map((entry) => entry.file).sort());
    expect(steps.filter((step) => 'sample' in step || 'observed_at' in step)).toEqual([]);
  });

  it('files both PAYEMS vintages under bls.CES0000000001 at their release dates', () => {
    const releases = new Map(
      readText(SHARED_DATA, 'calendars/bls_release_dates.csv')
        .split('\n')
        .filter((line) => line.startsWith('Employment Situation,'))
        .map((line) => line.split(',').slice(1, 3) as [string, string]),
    );
    const fred = steps.filter((step) => step.source === 'fred');
    expect(fred).toHaveLength(2);
    for (const step of fred) {
      const file = (step.files as string[])[0]!;
      const lastMonth = readText(SAMPLE_DATA, file).trimEnd().split('\n').at(-1)!.slice(0, 7);
      expect(step).toMatchObject({ series: 'bls.CES0000000001', vintage: releases.get(lastMonth) });
    }
  });
});

describe('the research notes quote the shipped data', () => {
  const note = (name: string) => readText(SAMPLE_DATA, `research/${name}.md`);
  const csvRows = (file: string) =>
    readText(SAMPLE_DATA, file)
      .trimEnd()
      .split('\n')
      .map((line) => line.replace(/\r$/, '').split(','));
  const format = (n: number) => Math.abs(n).toLocaleString('en-US');

  it('payroll revisions: the benchmark revision between the two vintages', () => {
    const level = (file: string) => new Map(csvRows(file).map(([date, value]) => [date, Number(value)]));
    const early = level('bls/fred_PAYEMS_vintage_2025-08-02.csv');
    const late = level('bls/fred_PAYEMS_vintage_latest-2026-09_trimmed_2023-07_onward.csv');
    const text = note('payroll-revisions-2026-benchmark');
    for (const month of ['2025-03-01', '2025-07-01']) {
      const [before, after] = [early.get(month)!, late.get(month)!];
      expect(text).toContain(format(before));
      expect(text).toContain(format(after));
      expect(text).toContain(`${format(before - after)}`);
    }
    expect(early.get('2025-03-01')! - late.get('2025-03-01')!).toBe(898);
    expect(early.get('2025-07-01')! - late.get('2025-07-01')!).toBe(997);
  });

  it('EUR/USD: the first-half 2025 rise and the quoted reference rates', () => {
    const rows = csvRows('ecb/eurofxref-hist_2025-01-02_to_2026-04-13.csv');
    const usd = rows[0]!.indexOf('USD');
    const rate = new Map(rows.slice(1).map((row) => [row[0], Number(row[usd])]));
    const text = note('eur-usd-rate-differentials');
    const rise = (rate.get('2025-06-30')! / rate.get('2025-01-02')! - 1) * 100;
    expect(text).toContain(`${rise.toFixed(1)}%`);
    for (const date of ['2025-01-02', '2025-01-13', '2026-01-28', '2026-04-13', '2026-01-06', '2026-03-17'])
      expect(text).toContain(String(rate.get(date)));
  });

  it('gold: legacy non-commercial net length on the dates of the table', () => {
    const rows = csvRows('cftc/legacy_futures_only_2025_selected_markets.txt');
    const text = note('gold-positioning-vs-trend');
    // Quoted names contain no commas in these rows' first columns; the code is field 3.
    const gold = rows.filter((row) => row[3]?.trim() === '088691');
    expect(gold).toHaveLength(10);
    const quoted = gold.filter((r) => ['2025-01-07', '2025-02-04', '2025-03-11'].includes(r[2]!));
    expect(quoted).toHaveLength(3);
    for (const row of quoted) {
      const [long, short] = [Number(row[8]), Number(row[9])];
      expect(text).toContain(`| ${row[2]} | ${format(long)} | ${format(short)} | ${format(long - short)} |`);
    }
  });
});
