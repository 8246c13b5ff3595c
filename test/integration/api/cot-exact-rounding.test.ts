import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getCotHistory } from '../../../src/api/v1/cot-history.ts';
import { cotSeriesKey } from '../../../src/api/v1/cot-report.ts';
import { parseRequest } from '../../../src/contract/parse-request.ts';
import { ROUTES } from '../../../src/contract/routes.ts';
import { cotAnalyticsSql, readMarkets } from '../../../src/query/cot.ts';
import { openSnapshotDb, type SnapshotDb } from '../../../src/query/snapshot-db.ts';
import { resolveLayout } from '../../../src/store/layout.ts';
import { readCurrentId } from '../../../src/store/manifest.ts';
import { computeExpected, LAYOUTS, readRawReports } from '../../helpers/cot-analytics-oracle.ts';
import { REPO_ROOT, SHARED_DATA } from '../../helpers/paths.ts';
import { FIXTURE_NOW, runMmds } from '../../helpers/run-cli.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';

/**
 * Issue 37 item 8: the analytics of a whole year of the CFTC's disaggregated reports (its own
 * fut_disagg_txt_2019.zip, 10,954 lines), ingested and published by the pipeline, equal to the last
 * digit an exact computation in rational arithmetic, exact halves rounded away from zero. Rounding
 * doubles served the two halves named below toward zero (3.62, 54.37).
 */

const ZIP = join(SHARED_DATA, 'cftc/history/disagg_fut_2019__fut_disagg_txt_2019.zip');
const FIELDS = ['pct_oi_net', 'cot_index_26', 'cot_index_52', 'cot_index_156', 'z_score_52'] as const;

describe('COT analytics of the disaggregated 2019 file, exact to the last digit', () => {
  const temp = createTempDir('mmds-cot-exact-');
  const env = { MMDS_DATA_DIR: join(temp.dir, 'data'), MMDS_DIST_DIR: join(temp.dir, 'dist') };
  let db: SnapshotDb;
  let member: string;

  beforeAll(async () => {
    for (const argv of [
      ['ingest', 'catalog', join(REPO_ROOT, 'data/catalog/catalog.yaml')],
      ['ingest', 'cftc', ZIP],
      ['publish'],
    ]) {
      const run = await runMmds(argv, env);
      expect(run.code, `${argv.join(' ')}: ${run.stderr}`).toBe(0);
    }
    const layout = resolveLayout(env.MMDS_DATA_DIR);
    db = await openSnapshotDb(layout, readCurrentId(layout)!);
    // The oracle reads the member as the CFTC wrote it, unpacked apart from the pipeline.
    member = join(temp.dir, 'f_year.txt');
    writeFileSync(member, unzipSync(readFileSync(ZIP))['f_year.txt']!);
    // A year of disaggregated reports takes minutes to ingest on a busy machine.
  }, 600_000);
  afterAll(async () => {
    await db?.close();
    temp.remove();
  });

  it('serves the exact halves away from zero: 3.625 as 3.63, 54.375 as 54.38, -3.125 as -3.13', async () => {
    const markets = await readMarkets(db);
    const route = ROUTES.find((r) => r.id === 'cot-market')!;
    const served = async (code: string, date: string, category: string) => {
      const market = markets.find((m) => m.code === code && m.report_types.includes('disaggregated'))!;
      const payload = await getCotHistory(
        { db, now: FIXTURE_NOW, keyed: true },
        parseRequest(
          route,
          market.slug,
          new URLSearchParams(`report_type=disaggregated&from=${date}&to=${date}`),
        ),
      );
      const [report] = payload.data as Array<{ categories: Record<string, Record<string, unknown>> }>;
      return report!.categories[category]!;
    };
    // Other reportable of 064FZB on 2019-10-08: net 29 of open interest 800, 3.625 %.
    expect((await served('064FZB', '2019-10-08', 'other_reportable')).pct_oi_net).toBe(3.63);
    // Other reportable of 86665E on 2019-09-24: (net - min) / (max - min) over 26 reports is 54.375 %.
    expect((await served('86665E', '2019-09-24', 'other_reportable')).cot_index_26).toBe(54.38);
    // A negative half, which rounding doubles happened to get right: away from zero as well.
    expect((await served('052642', '2019-08-20', 'managed_money')).pct_oi_net).toBe(-3.13);
  });

  it('every value of every report and category equals the exact computation from the raw file', async () => {
    const layout = LAYOUTS.find((l) => l.type === 'disaggregated')!;
    const raw = await readRawReports(layout, member);
    const rows = await db.query<{
      series_key: string;
      period: string;
      analytics: Array<Record<string, unknown>>;
    }>(
      `SELECT series_key, period, analytics FROM (${cotAnalyticsSql('cot_reports', "report_type = 'disaggregated'")})`,
    );
    const servedOf = new Map(rows.map((row) => [`${row.series_key} ${row.period}`, row.analytics]));
    // Differences are gathered and compared once: an expect per value is slow on 300,000 values.
    const differences: string[] = [];
    let compared = 0;
    let windows = 0;
    for (const [key, reports] of raw) {
      for (const [period, categories] of computeExpected(reports, { index: [26, 52, 156], z: 52 })) {
        const analytics = servedOf.get(`${key} ${period}`) ?? [];
        for (const [category, expected] of Object.entries(categories)) {
          const served = analytics.find((a) => a.category === category) ?? {};
          for (const field of FIELDS) {
            compared++;
            if (field === 'cot_index_26' && expected[field] !== null) windows++;
            if (!Object.is(served[field], expected[field]))
              differences.push(
                `${key} ${period} ${category} ${field}: ${served[field]} <> ${expected[field]}`,
              );
          }
        }
      }
    }
    expect(differences.slice(0, 5)).toEqual([]);
    expect(new Set(rows.map((r) => r.series_key)).size).toBe(raw.size);
    expect(raw.has(cotSeriesKey('064FZB', 'disaggregated'))).toBe(true);
    expect(compared).toBeGreaterThan(300_000);
    expect(windows).toBeGreaterThan(10_000);
  });
});
