/**
 * The scale leg of the benchmark: a synthetic store of N observations (generate-synthetic.ts),
 * published with `mmds publish`, served by a spawned `mmds serve`, and queried over HTTP and
 * in-process.
 */
import { join } from 'node:path';
import { readObservationHistory } from '../../src/query/history.ts';
import { openSnapshotDb, type SnapshotDb } from '../../src/query/snapshot-db.ts';
import { resolveLayout } from '../../src/store/layout.ts';
import { readCurrentId, readManifest } from '../../src/store/manifest.ts';
import {
  generateSyntheticStore,
  type SyntheticShape,
  syntheticObservedAt,
  syntheticSeriesKey,
} from './generate-synthetic.ts';
import { createHttpCaller, type LoadResult, runClosedLoop } from './load.ts';
import { readMemory, runMmds, startMmdsServe } from './processes.ts';

/** What the scale leg measured for one store size. */
export interface ScaleResult {
  observations: number;
  shape: SyntheticShape;
  generate_s: number;
  publish_s: number;
  parquet_bytes: number;
  serve_ready_s: number;
  series_key: string;
  one_series_http: LoadResult;
  one_series_in_process: LoadResult;
  whole_catalogue_in_process_ms: { p50: number; min: number; runs: number; rows: number };
  server_rss_bytes: number;
  server_peak_rss_bytes: number;
}

/**
 * The whole-catalogue "as of" read of the benchmark (not an endpoint): for every series, the
 * latest period known at an instant and the revision of it in force then.
 */
const WHOLE_CATALOGUE_AS_OF = `SELECT series_key,
       max_by(period, (period, revision_number)) AS period,
       max_by(value, (period, revision_number)) AS value,
       max_by(revision_number, (period, revision_number)) AS revision_number
  FROM observations
 WHERE observed_at <= $as_of::TIMESTAMP
 GROUP BY series_key`;

/** Runs the scale leg for one shape in `dir` (a data directory of its own). */
export async function measureScale(
  dir: string,
  shape: SyntheticShape,
  options: { seconds: number; log: (line: string) => void },
): Promise<ScaleResult> {
  const dataDir = join(dir, 'data');
  const env = { MMDS_DATA_DIR: dataDir, MMDS_DIST_DIR: join(dir, 'dist'), MMDS_TRUSTED_PROXIES: '0' };
  const total = shape.series * shape.periods * shape.revisions;
  options.log(`scale ${total}: generating ${shape.series} x ${shape.periods} x ${shape.revisions}…`);
  const batch = await generateSyntheticStore(dataDir, shape, { catalogSeries: false, now: new Date() });
  options.log(`scale ${total}: publishing…`);
  const published = runMmds(['publish'], env);
  const layout = resolveLayout(dataDir);
  const snapshotId = readCurrentId(layout)!;
  const parquetBytes = readManifest(layout, snapshotId).tables.observations?.bytes ?? 0;
  const issued = JSON.parse(
    runMmds(
      [
        'keys',
        'issue',
        '--org',
        'bench',
        '--scopes',
        'observations:read',
        '--rate-limit',
        '100000',
        '--json',
      ],
      env,
    ).stdout,
  ) as { key: string };
  options.log(`scale ${total}: starting mmds serve…`);
  const started = performance.now();
  const server = await startMmdsServe(`mmds serve (${total})`, env);
  const readyS = (performance.now() - started) / 1000;
  const key = syntheticSeriesKey(Math.floor(shape.series / 2));
  const base = syntheticObservedAt(Math.floor(shape.periods / 2), 2).getTime();
  const asOf = (i: number) => `${new Date(base + (i % 86_400) * 1000).toISOString().slice(0, 19)}Z`;
  const http = createHttpCaller(4);
  let db: SnapshotDb | null = null;
  try {
    const headers = { authorization: `Bearer ${issued.key}` };
    const oneHttp = await runClosedLoop(
      (i) => http.get(`${server.url}/api/v1/observations?series=${key}&as_of=${asOf(i)}`, headers),
      1,
      options.seconds,
    );
    const memory = readMemory(server.pid);
    await server.stop();
    db = await openSnapshotDb(layout, snapshotId, { poolSize: 4 });
    const openDb = db;
    const oneInProcess = await runClosedLoop(
      async (i) => {
        await readObservationHistory(openDb, key, {
          asOf: asOf(i),
          from: null,
          to: null,
          after: null,
          limit: 1000,
        });
        return true;
      },
      1,
      options.seconds,
    );
    const wholeAsOf = `${new Date(base).toISOString().slice(0, 19)}Z`;
    const times: number[] = [];
    let rows = 0;
    await openDb.query(WHOLE_CATALOGUE_AS_OF, { as_of: wholeAsOf });
    for (let run = 0; run < 5; run++) {
      const t = performance.now();
      rows = (await openDb.query(WHOLE_CATALOGUE_AS_OF, { as_of: wholeAsOf })).length;
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    return {
      observations: batch.rows,
      shape,
      generate_s: batch.seconds,
      publish_s: published.seconds,
      parquet_bytes: parquetBytes,
      serve_ready_s: readyS,
      series_key: key,
      one_series_http: oneHttp,
      one_series_in_process: oneInProcess,
      whole_catalogue_in_process_ms: { p50: times[2]!, min: times[0]!, runs: times.length, rows },
      server_rss_bytes: memory.rss,
      server_peak_rss_bytes: memory.peak,
    };
  } finally {
    http.close();
    await server.stop();
    await db?.close();
  }
}
