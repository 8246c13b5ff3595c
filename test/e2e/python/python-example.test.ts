import { createHash } from 'node:crypto';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../helpers/paths.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import { type SharedSampleFixture, useSharedSample } from '../../helpers/shared-sample-build.ts';
import { runSystemPython } from './run-python.ts';

// docs/clients/python.md: the example run with Debian's python3-pandas against the real server,
// its report checked against values this test computes itself over HTTP.

const REAL_CLOCK = () => new Date();
const SCRIPT = join(REPO_ROOT, 'examples/python/mmds_example.py');
const SERIES = 'bls.CES0000000001';
const SLUG = 'nonfarm-payrolls';
/** Between the two PAYEMS vintages of the sample (2025-08-01 and 2026-10-02 releases). */
const AS_OF = '2026-01-01T00:00:00Z';

interface ObservationRow {
  period: string;
  value: number;
  in_force: boolean;
  observed_at: string;
}

interface BulkFile {
  dataset: string;
  format: string;
  path: string;
  rows: number;
  sha256: string;
}

interface ExampleReport {
  series: string;
  as_of: string;
  parquet_engine: string | null;
  series_csv: { periods: number; last_period: string };
  bulk: { snapshot: string; format: string; rows: number; series_rows: number };
  as_of_step: {
    rows: number;
    periods_known: number;
    last_period_known: string;
    revised_periods: number;
    example_period: string;
    value_known_then: number;
    value_in_force_today: number;
    signal_known_then: number;
    signal_with_today_values: number;
  };
  full_store: { snapshot?: string; files?: number; verified?: number; status: string };
}

/** Mean month-on-month change over the last `months` periods (the example's signal, recomputed). */
function meanChange(values: ReadonlyMap<string, number>, months: number): number {
  const sorted = [...values.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, value]) => value);
  const changes = sorted.slice(1).map((value, i) => value - sorted[i]!);
  const last = changes.slice(-months);
  return last.reduce((sum, change) => sum + change, 0) / last.length;
}

describe('the Python example (pandas) against the real server', () => {
  let fixture: SharedSampleFixture;
  let server: TestServer;
  let fullKey: string;
  let observationsKey: string;

  const issue = async (scopes: string): Promise<string> => {
    const run = await runMmds(
      ['--json', 'keys', 'issue', '--org', 'Python Example', '--scopes', scopes, '--rate-limit', '10000'],
      fixture.env,
      REAL_CLOCK,
    );
    expect(run.code, run.stderr).toBe(0);
    return (JSON.parse(run.stdout) as { key: string }).key;
  };

  const getJson = async <T>(path: string, key?: string): Promise<T> => {
    const response = await fetch(`${server.url}${path}`, {
      headers: key ? { Authorization: `Bearer ${key}` } : {},
    });
    expect(response.status, path).toBe(200);
    return (await response.json()) as T;
  };

  const runExample = (url: string, key: string, args: string[] = ['--json'], keyVariable = 'MMDS_KEY') =>
    runSystemPython([SCRIPT, '--as-of', AS_OF, ...args], { MMDS_URL: url, [keyVariable]: key });

  beforeAll(async () => {
    // The shared build of the sample (test/helpers/shared-sample-build.ts): this test only reads dist/.
    fixture = await useSharedSample();
    server = await startTestServer({
      dataDir: fixture.dataDir,
      distDir: fixture.distDir,
      anonymousLimit: 10_000,
    });
    fullKey = await issue('observations:read,bulk:read');
    observationsKey = await issue('observations:read');
  });

  afterAll(async () => {
    await server?.close();
    fixture?.remove();
  });

  it('reports the CSV, the bulk file, the as_of step and the full store as the API answers them', async () => {
    const run = await runExample(server.url, fullKey);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as ExampleReport;

    // Step 1: values in force today, from the JSON of the same endpoint.
    const history = await getJson<{ data: Array<{ period: string; value: number }> }>(
      `/api/v1/series/${SLUG}`,
    );
    const today = new Map(history.data.map((row) => [row.period, row.value]));
    expect(report.series_csv).toEqual({ periods: today.size, last_period: history.data.at(-1)!.period });

    // Step 2: the bulk listing's latest observations file, in the format pandas could read here.
    const bulk = await getJson<{
      data: Array<{ snapshot: string; files: BulkFile[] }>;
      meta: { latest: string };
    }>('/api/v1/bulk');
    const format = report.parquet_engine ? 'parquet' : 'csv.gz';
    const file = bulk.data
      .find((entry) => entry.snapshot === bulk.meta.latest)!
      .files.find((f) => f.dataset === 'observations' && f.format === format)!;
    const bytes = Buffer.from(await (await fetch(`${server.url}${file.path}`)).arrayBuffer());
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(file.sha256);
    if (format === 'csv.gz') {
      const lines = gunzipSync(bytes).toString().split('\r\n').filter(Boolean);
      const seriesRows = lines.filter((line) => line.split(',')[1] === SERIES).length;
      expect(report.bulk).toEqual({
        snapshot: fixture.snapshotId,
        format,
        rows: lines.length - 1,
        series_rows: seriesRows,
      });
      expect(seriesRows).toBe(today.size);
    } else {
      expect(report.bulk).toMatchObject({ snapshot: fixture.snapshotId, format, rows: file.rows });
    }

    // Step 3: the as_of view in JSON, and what changed since.
    const asOf = await getJson<{ data: ObservationRow[] }>(
      `/api/v1/observations?series=${SERIES}&as_of=${AS_OF}&limit=10000`,
      fullKey,
    );
    expect(asOf.data.every((row) => row.observed_at <= AS_OF)).toBe(true);
    const known = new Map(asOf.data.filter((row) => row.in_force).map((row) => [row.period, row.value]));
    const revised = [...known.keys()].filter((p) => today.has(p) && today.get(p) !== known.get(p)).sort();
    // Not vacuous: the 2026 benchmark revised payrolls known at T.
    expect(revised.length).toBeGreaterThan(0);
    const lastKnown = [...known.keys()].sort().at(-1)!;
    const example = revised.at(-1)!;
    const todayUpToT = new Map([...today].filter(([period]) => period <= lastKnown));
    expect(report.as_of_step).toEqual({
      rows: asOf.data.length,
      periods_known: known.size,
      last_period_known: lastKnown,
      revised_periods: revised.length,
      example_period: example,
      value_known_then: known.get(example),
      value_in_force_today: today.get(example),
      signal_known_then: expect.closeTo(meanChange(known, 3), 6),
      signal_with_today_values: expect.closeTo(meanChange(todayUpToT, 3), 6),
    });
    expect(report.as_of_step.value_known_then).not.toBe(report.as_of_step.value_in_force_today);

    // Step 4: the full store's BLS partitions, checked; rebuilt only with a Parquet engine.
    const full = await getJson<{ data: Array<{ table: string; source: string | null }> }>(
      '/api/v1/bulk/full',
      fullKey,
    );
    expect(report.full_store).toMatchObject({
      snapshot: fixture.snapshotId,
      files: full.data.length,
      verified: full.data.filter((f) => f.table === 'observations' && f.source === 'bls').length,
    });
    expect(report.full_store.verified).toBeGreaterThan(0);
    expect(report.full_store.status).toMatch(
      report.parquet_engine
        ? /rebuilt from the full store .*identical/
        : /sha256 verified; as_of rebuild skipped/,
    );
  });

  it('prints a short report, and skips the full store for a key without bulk:read', async () => {
    // MMDS_API_KEY, the name older docs used, is read when MMDS_KEY is not set.
    const run = await runExample(server.url, observationsKey, [], 'MMDS_API_KEY');
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines.at(-1)).toBe('OK');
    expect(run.stdout).toContain(`as_of ${AS_OF}:`);
    expect(run.stdout).toMatch(/known then, \d+ in force today/);
    expect(run.stdout).toContain('full store: skipped: the key lacks bulk:read');
  });

  it('exits 1 when a download does not match its listed sha256, or the key is refused', async () => {
    // A proxy in front of the server that changes one byte of every bulk file it passes on.
    const target = new URL(server.url);
    const proxy: Server = createServer((incoming, outgoing) => {
      const upstream = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          path: incoming.url,
          method: incoming.method,
          headers: incoming.headers,
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            const body = Buffer.concat(chunks);
            if (
              /\/api\/v1\/bulk\/[^/]+\/observations\.(parquet|csv\.gz)$/.test(incoming.url ?? '') &&
              body.length > 0
            )
              body[body.length - 1]! ^= 1;
            outgoing.writeHead(response.statusCode ?? 502, response.headers);
            outgoing.end(body);
          });
        },
      );
      upstream.end();
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      const tampered = await runExample(url, fullKey);
      expect(tampered.code).toBe(1);
      expect(tampered.stderr).toMatch(/^MISMATCH: .*observations\.(parquet|csv\.gz): sha256/);
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
    const refused = await runExample(
      server.url,
      `${fullKey.slice(0, -1)}${fullKey.endsWith('a') ? 'b' : 'a'}`,
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('unauthorized');
  });

  it('exits 1 with one line, no traceback, when the server is down or no key is set', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const down = await runExample(`http://127.0.0.1:${port}`, fullKey, []);
    expect(down.code).toBe(1);
    expect(down.stdout).toBe('');
    expect(down.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        new RegExp(
          `^ERROR: cannot reach http://127\\.0\\.0\\.1:${port} \\(.*refused.*\\); is the server running\\?`,
        ),
      ),
    ]);
    const keyless = await runExample(server.url, '', []);
    expect(keyless.code).toBe(1);
    expect(keyless.stderr).not.toContain('Traceback');
    expect(keyless.stderr.trim()).toMatch(
      /^ERROR: \/api\/v1\/observations\?.* needs an API key: set MMDS_KEY$/,
    );
  });
});
