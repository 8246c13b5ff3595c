import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveLayout } from '../../../src/store/layout.ts';
import { readCurrentId } from '../../../src/store/manifest.ts';
import { REPO_ROOT, SAMPLE_DATA } from '../../helpers/paths.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';

interface StatusSource {
  id: string;
  series_count: number;
  last_period: string | null;
  last_observed_at: string | null;
  stale: boolean | null;
}

const VINTAGE = join(SAMPLE_DATA, 'bls/fred_PAYEMS_vintage_2025-08-02.csv');

/**
 * FRED's ALFRED vintages are stored under the owner's series (PAYEMS as bls.CES0000000001), so
 * FRED has no series of its own: its status line is that of the vintages it delivered, not "no
 * data" (issue 36). Over HTTP, on the JSON status and the page the server renders live, before and
 * after a vintage is ingested.
 */
describe('the status of a distributor (FRED)', () => {
  const temp = createTempDir('mmds-status-fred-');
  const dataDir = join(temp.dir, 'data');
  const env = { MMDS_DATA_DIR: dataDir, MMDS_DIST_DIR: join(temp.dir, 'dist') };
  let server: TestServer;

  const run = async (argv: string[]) => {
    const result = await runMmds(argv, env, () => new Date('2026-11-20T10:00:00Z'));
    expect(result.code, `${argv.join(' ')}: ${result.stderr}`).toBe(0);
  };
  const status = async () => {
    const response = await fetch(`${server.url}/api/v1/status`);
    const body = (await response.json()) as { data: { sources: StatusSource[] } };
    return { snapshot: response.headers.get('x-snapshot-id'), sources: body.data.sources };
  };
  const pageRow = async (name: string) => {
    const html = await (await fetch(`${server.url}/status/`)).text();
    return html.split('<tr>').find((row) => row.includes('scope="row"') && row.includes(name)) ?? '';
  };

  beforeAll(async () => {
    await run(['ingest', 'catalog', join(REPO_ROOT, 'data/catalog/catalog.yaml')]);
    await run([
      'ingest',
      'bls',
      join(SAMPLE_DATA, 'bls/bls_api_v2_cps_situation_2015.json'),
      '--collected-at',
      '2016-02-01T17:33:08Z',
    ]);
    await run(['publish']);
    // The clock of the server: three weeks after the vintage, within FRED's 45 days.
    server = await startTestServer({
      dataDir,
      distDir: join(temp.dir, 'no-dist'),
      pollMs: 100,
      now: () => new Date('2025-08-20T00:00:00Z'),
    });
  });

  afterAll(async () => {
    await server?.close();
    temp.remove();
  });

  it('says "no data" for FRED until a vintage is ingested, then gives the vintages it delivered', async () => {
    const before = await status();
    expect(before.sources.find((s) => s.id === 'fred')).toMatchObject({
      series_count: 0,
      last_observed_at: null,
      stale: null,
    });
    expect(await pageRow('FRED')).toContain('no data');
    const bls = before.sources.find((s) => s.id === 'bls')!;

    await run(['ingest', 'fred', VINTAGE, '--series', 'bls.CES0000000001', '--vintage', '2025-08-01']);
    await run(['publish']);
    const id = readCurrentId(resolveLayout(dataDir));
    let after = await status();
    for (let i = 0; i < 200 && after.snapshot !== id; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      after = await status();
    }
    expect(after.snapshot).toBe(id);
    // The file's newest month; the Employment Situation of 1 August 2025 (08:30 New York) dates
    // the vintage of that day.
    const lastDate = readFileSync(VINTAGE, 'utf8').trim().split('\n').at(-1)!.split(',')[0]!;
    expect(after.sources.find((s) => s.id === 'fred')).toMatchObject({
      series_count: 1,
      last_period: lastDate.slice(0, 7),
      last_observed_at: '2025-08-01T12:30:00Z',
      stale: false,
    });
    // The series stays the BLS's: one more series there.
    expect(after.sources.find((s) => s.id === 'bls')!.series_count).toBe(bls.series_count + 1);
    const row = await pageRow('FRED');
    expect(row).not.toContain('no data');
    expect(row).toContain('badge-fresh');
    expect(row).toContain(lastDate.slice(0, 7));
  });
});
