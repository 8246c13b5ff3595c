import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getCurrencies } from '../../../src/api/v1/reference.ts';
import { openSnapshotDb, type SnapshotDb } from '../../../src/query/snapshot-db.ts';
import { resolveLayout } from '../../../src/store/layout.ts';
import { readCurrentId } from '../../../src/store/manifest.ts';
import { REPO_ROOT, SHARED_DATA } from '../../helpers/paths.ts';
import { FIXTURE_NOW, runMmds } from '../../helpers/run-cli.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';
import { readLines } from './store-files.ts';

const shared = (path: string) => join(SHARED_DATA, path);
const CATALOG = join(REPO_ROOT, 'data/catalog/catalog.yaml');
const LIST_ONE = shared('iso/iso4217_list_one_table_a1.xml');
const LIST_THREE = shared('iso/iso4217_list_three_table_a3_historic.xml');
const ECB_HIST = shared('ecb/eurofxref-hist.csv');

/** Currencies of the ECB history that ISO 4217 list one no longer has. */
const WITHDRAWN_IN_HISTORY = ['CYP', 'EEK', 'HRK', 'LTL', 'LVL', 'MTL', 'ROL', 'SIT', 'SKK', 'TRL'];

/** The non-`N/A` rates of one currency column of eurofxref-hist.csv, by date. */
function readHistoryColumn(currency: string): Map<string, number> {
  const [header, ...rows] = readLines(ECB_HIST);
  const index = header!.split(',').indexOf(currency);
  const rates = new Map<string, number>();
  for (const row of rows) {
    const cells = row.split(',');
    const cell = cells[index]?.trim() ?? '';
    if (cell !== '' && cell !== 'N/A') rates.set(cells[0]!, Number(cell));
  }
  return rates;
}

async function ingest(env: Record<string, string>, source: string, ...files: string[]): Promise<void> {
  const run = await runMmds(['ingest', source, ...files], env);
  expect(run.code, `ingest ${source}: ${run.stderr}`).toBe(0);
}

describe('the real ECB history publishes once ISO 4217 list one and list three are ingested together', () => {
  const temp = createTempDir('mmds-ecb-hist-');
  const env = { MMDS_DATA_DIR: join(temp.dir, 'data') };
  let db: SnapshotDb;

  beforeAll(async () => {
    await ingest(env, 'catalog', CATALOG);
    await ingest(env, 'm49', shared('iso/unsd_m49_overview_en.csv'));
    await ingest(env, 'countries', shared('iso/country-codes.csv'));
    // What `mmds fetch iso4217` hands the parser: both SIX files in one ingest.
    await ingest(env, 'iso4217', LIST_ONE, LIST_THREE);
    await ingest(env, 'ecb', ECB_HIST);
    const publish = await runMmds(['publish'], env);
    expect(publish.code, publish.stderr).toBe(0);
    const layout = resolveLayout(env.MMDS_DATA_DIR);
    db = await openSnapshotDb(layout, readCurrentId(layout)!);
  });

  afterAll(async () => {
    await db?.close();
    temp.remove();
  });

  it('publishes every rate of the withdrawn currencies, CYP to TRL', async () => {
    for (const currency of WITHDRAWN_IN_HISTORY) {
      const expected = readHistoryColumn(currency);
      const rows = await db.query<{ period: string; value: number }>(
        `SELECT period, value FROM observations WHERE series_key = $key ORDER BY period`,
        { key: `ecb.${currency}` },
      );
      expect(rows.length, currency).toBe(expected.size);
      expect(expected.size, currency).toBeGreaterThan(0);
      for (const row of rows) expect(row.value, `${currency} ${row.period}`).toBe(expected.get(row.period));
    }
  });

  it('serves those currencies as withdrawn and BGN and RUB as current', async () => {
    const payload = await getCurrencies(
      { db, now: FIXTURE_NOW, keyed: false },
      { slug: null, query: {}, keyedParams: [] },
    );
    const data = payload.data as Array<{
      code: string;
      current: boolean;
      withdrawn: string | null;
      withdrawals: unknown[];
    }>;
    const byCode = new Map(data.map((row) => [row.code, row]));
    for (const code of WITHDRAWN_IN_HISTORY) {
      expect(byCode.get(code), code).toMatchObject({ current: false });
      expect(byCode.get(code)?.withdrawals.length, code).toBeGreaterThan(0);
    }
    expect(byCode.get('CYP')).toMatchObject({
      withdrawn: '2008-01',
      withdrawals: [{ entity: 'CYPRUS', name: 'Cyprus Pound', withdrawn: '2008-01' }],
    });
    expect(byCode.get('HRK')?.withdrawals).toEqual([
      { entity: 'CROATIA', name: 'Croatian Kuna', withdrawn: '2015-06' },
      { entity: 'CROATIA', name: 'Kuna', withdrawn: '2023-01' },
    ]);
    for (const code of ['BGN', 'RUB', 'USD'])
      expect(byCode.get(code), code).toMatchObject({ current: true, withdrawn: null });
  });
});

describe('list one alone (the defect this guards against)', () => {
  const temp = createTempDir('mmds-ecb-list-one-');
  const env = { MMDS_DATA_DIR: join(temp.dir, 'data') };
  afterAll(() => temp.remove());

  it('refuses to publish the catalog, whose ECB series quote CYP', async () => {
    await ingest(env, 'catalog', CATALOG);
    await ingest(env, 'iso4217', LIST_ONE);
    const publish = await runMmds(['publish'], env);
    expect(publish.code).not.toBe(0);
    expect(publish.stderr).toContain('series ecb.CYP: unknown currency CYP');
  });
});
