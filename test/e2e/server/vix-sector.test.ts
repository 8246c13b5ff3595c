import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, SAMPLE_DATA } from '../../helpers/paths.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';

interface Market {
  slug: string;
  name: string;
  sector: string | null;
}

/**
 * VIX futures carry the CFTC subgroup F90 (other financial), which alone would file them under
 * rates-fx; they are an equity index market (issue 36). Read over HTTP from a snapshot of the
 * shipped catalog and a sample TFF file holding VIX.
 */
describe('the sector of VIX futures', () => {
  const temp = createTempDir('mmds-vix-sector-');
  const dataDir = join(temp.dir, 'data');
  const env = { MMDS_DATA_DIR: dataDir, MMDS_DIST_DIR: join(temp.dir, 'dist') };
  let server: TestServer;

  beforeAll(async () => {
    const at = () => new Date('2026-11-20T10:00:00Z');
    for (const argv of [
      ['ingest', 'catalog', join(REPO_ROOT, 'data/catalog/catalog.yaml')],
      ['ingest', 'cftc', join(SAMPLE_DATA, 'cftc/tff_futures_only_2013_selected_markets.txt')],
      ['publish'],
    ]) {
      const result = await runMmds(argv, env, at);
      expect(result.code, `${argv.join(' ')}: ${result.stderr}`).toBe(0);
    }
    server = await startTestServer({ dataDir, distDir: join(temp.dir, 'no-dist') });
  });

  afterAll(async () => {
    await server?.close();
    temp.remove();
  });

  it('is equities, a sector the catalog lists and describes as holding it', async () => {
    const response = await fetch(`${server.url}/api/v1/markets/cot`);
    const text = await response.text();
    expect(response.status, text).toBe(200);
    const markets = (JSON.parse(text) as { data: Market[] }).data;
    const vix = markets.filter((m) => /\bVIX\b/i.test(m.name));
    expect(vix.map((m) => m.sector)).toEqual(['equities']);
    const sectors = (await (await fetch(`${server.url}/api/v1/sectors`)).json()) as {
      data: Array<{ id: string; description: string }>;
    };
    expect(sectors.data.find((s) => s.id === 'equities')?.description).toMatch(/VIX/);
  });
});
