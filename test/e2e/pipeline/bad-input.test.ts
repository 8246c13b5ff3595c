import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, SHARED_DATA } from '../../helpers/paths.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { createSampleSnapshot, type SnapshotFixture } from '../../helpers/snapshot-fixture.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';
import { hashTree, readLines, readStderrMessages } from './store-files.ts';

const shared = (path: string) => join(SHARED_DATA, path);

describe('bad input to mmds: one line naming the file, a non-zero exit, the store untouched', () => {
  let fixture: SnapshotFixture;
  let temp: ReturnType<typeof createTempDir>;
  const file = (name: string, content: string | Buffer) => {
    const path = join(temp.dir, name);
    writeFileSync(path, content);
    return path;
  };

  beforeAll(async () => {
    fixture = await createSampleSnapshot();
    temp = createTempDir('mmds-bad-input-');
  });
  afterAll(() => {
    fixture?.remove();
    temp?.remove();
  });

  /** Runs mmds and checks the failure contract; returns the exit code and the one stderr line. */
  async function expectRefused(
    argv: readonly string[],
    mentions: readonly string[],
  ): Promise<{ code: number; line: string }> {
    const before = hashTree(fixture.dataDir);
    const run = await runMmds(argv, fixture.env);
    expect(run.code, run.stderr).not.toBe(0);
    // Exactly one message, the last thing written; anything before it is a progress line.
    const lines = readStderrMessages(run.stderr);
    expect(lines, run.stderr).toHaveLength(1);
    const [line] = lines;
    expect(run.stderr.endsWith(`${line}\n`)).toBe(true);
    expect(line).toMatch(/^mmds: /);
    for (const text of mentions) expect(line).toContain(text);
    expect(run.stdout).toBe('');
    expect(hashTree(fixture.dataDir)).toEqual(before);
    return { code: run.code, line: line! };
  }

  it('refuses a CFTC file cut off in the middle of a row, naming the line', async () => {
    const lines = readLines(shared('cftc/legacy_futures_only_2025_selected_markets.txt'));
    const partial = lines[11]!.slice(0, Math.floor(lines[11]!.length * 0.4));
    const path = file('legacy_cut.txt', `${lines.slice(0, 11).join('\n')}\n${partial}`);
    const { code } = await expectRefused(
      ['ingest', 'cftc', path],
      ['legacy_cut.txt:12:', 'store is unchanged'],
    );
    expect(code).toBe(1);
  });

  it('refuses a CFTC file cut off inside a quoted market name, naming the file', async () => {
    const lines = readLines(shared('cftc/legacy_futures_only_2025_selected_markets.txt'));
    const path = file('legacy_cut_quote.txt', `${lines.slice(0, 11).join('\n')}\n${lines[11]!.slice(0, 10)}`);
    expect(lines[11]!.slice(0, 10)).toMatch(/^"[^"]+$/);
    await expectRefused(['ingest', 'cftc', path], ['legacy_cut_quote.txt', 'store is unchanged']);
  });

  it('refuses an ECB CSV with a rate that is not a number, naming line and currency', async () => {
    const [header, ...rows] = readLines(shared('ecb/eurofxref-hist.csv'));
    const usd = header!.split(',').indexOf('USD');
    const cells = rows[2]!.split(',');
    cells[usd] = 'abc';
    rows[2] = cells.join(',');
    const path = file('eurofxref-bad.csv', `${[header, ...rows.slice(0, 5)].join('\n')}\n`);
    const { code } = await expectRefused(['ingest', 'ecb', path], ['eurofxref-bad.csv:4:', '"USD"', '"abc"']);
    expect(code).toBe(1);
  });

  it('refuses a file of another source: an ECB CSV given to cftc, a CFTC file given to bls', async () => {
    await expectRefused(
      ['ingest', 'cftc', shared('ecb/eurofxref-hist.csv')],
      ['eurofxref-hist.csv:1:', 'not a CFTC Commitments of Traders file'],
    );
    await expectRefused(
      ['ingest', 'bls', shared('cftc/legacy_futures_only_2025_selected_markets.txt')],
      ['legacy_futures_only_2025_selected_markets.txt:1:', 'not a BLS format'],
    );
  });

  it('refuses an unknown source with a usage error', async () => {
    const { code } = await expectRefused(
      ['ingest', 'nosuch', shared('ecb/eurofxref.csv')],
      ['unknown source "nosuch"'],
    );
    expect(code).toBe(2);
  });

  it('refuses a file that does not exist, naming it', async () => {
    const missing = join(temp.dir, 'no-such-eurofxref.csv');
    const { code } = await expectRefused(['ingest', 'ecb', missing], [missing, 'no such file']);
    expect(code).toBe(2);
  });

  it('refuses an --observed-at that is not a UTC timestamp', async () => {
    const json = shared('bls/bls_api_v2_cps_situation_2015.json');
    for (const value of ['2016-02-01', '2016-02-01T00:00:00+01:00', 'yesterday']) {
      const { code } = await expectRefused(
        ['ingest', 'bls', json, '--observed-at', value],
        ['--observed-at', `"${value}"`],
      );
      expect(code).toBe(2);
    }
  });

  it('refuses an empty file for every source format', async () => {
    for (const source of ['ecb', 'cftc', 'bls']) {
      const path = file(`empty-${source}.txt`, '');
      await expectRefused(['ingest', source, path], [`empty-${source}.txt`, 'empty']);
    }
    await expectRefused(
      ['ingest', 'fred', file('empty-fred.csv', ''), '--series', 'bls.X', '--vintage', '2026-01-01'],
      ['empty-fred.csv', 'empty'],
    );
  });

  it("refuses the BLS API's error response, quoting its message", async () => {
    const path = shared('bls/bls_api_v2_error_bad_end_year.json');
    const response = JSON.parse(readFileSync(path, 'utf8')) as { status: string; message: string[] };
    expect(response.status).not.toBe('REQUEST_SUCCEEDED');
    await expectRefused(
      ['ingest', 'bls', path, '--observed-at', '2016-02-01T00:00:00Z'],
      [basename(path), response.status, response.message[0]!],
    );
  });

  it('refuses a catalog whose source has a rights value outside the four allowed', async () => {
    const text = readFileSync(join(REPO_ROOT, 'data/catalog/catalog.yaml'), 'utf8');
    const lines = text.split('\n');
    const at = lines.findIndex((line) => /^\s+rights: /.test(line));
    lines[at] = lines[at]!.replace(/rights: \S+/, 'rights: free-for-all');
    const path = file('catalog.yaml', lines.join('\n'));
    const { line } = await expectRefused(['ingest', 'catalog', path], [`catalog.yaml:${at + 1}:`, 'rights']);
    expect(line).toContain('public_domain');
  });

  it('makes mmds verify exit 1 and name the batch whose file was damaged', async () => {
    const intact = await runMmds(['verify'], fixture.env);
    expect(intact.code, intact.stdout).toBe(0);

    const copy = join(temp.dir, 'damaged');
    cpSync(fixture.dataDir, copy, { recursive: true });
    const batchesDir = join(copy, 'store', 'batches');
    const batch = readdirSync(batchesDir).sort()[6]!;
    const parquet = readdirSync(join(batchesDir, batch)).find((name) => name.endsWith('.parquet'))!;
    const path = join(batchesDir, batch, parquet);
    const bytes = readFileSync(path);
    bytes[Math.floor(bytes.length / 2)]! ^= 0xff;
    writeFileSync(path, bytes);

    const run = await runMmds(['verify'], { ...fixture.env, MMDS_DATA_DIR: copy });
    expect(run.code).toBe(1);
    expect(readStderrMessages(run.stderr)).toEqual([
      'mmds: verify found 1 error(s): each error line names its check and the batch or snapshot; fix each as docs/operations.md ("Snapshots and reloads") says, then run mmds verify again',
    ]);
    expect(run.stdout).toContain(
      `error: checksum: batch ${batch}: ${parquet.replace('.parquet', '')} SHA-256 differs`,
    );
  });
});
