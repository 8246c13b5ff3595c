import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSnapshotDb } from '../../../src/query/snapshot-db.ts';
import { listBatches } from '../../../src/store/batches.ts';
import { resolveLayout } from '../../../src/store/layout.ts';
import { readCurrentId } from '../../../src/store/manifest.ts';
import { REPO_ROOT, SHARED_DATA } from '../../helpers/paths.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';
import { hashTree, readLines, readStderrMessages, splitCsvLine } from './store-files.ts';

const DAILY_XML = readFileSync(join(SHARED_DATA, 'ecb/eurofxref-daily.xml'));
const COT_FILE = 'legacy_futures_only_2025_selected_markets.txt';
const COT_TEXT = readFileSync(join(SHARED_DATA, 'cftc', COT_FILE));

/** Two days of rates in the ECB's 90-day gesmes layout, written for this test. */
const NINETY_DAY_RATES: Record<string, Record<string, number>> = {
  '2025-05-08': { USD: 1.1283, JPY: 163.55, GBP: 0.8491 },
  '2025-05-07': { USD: 1.1354, JPY: 162.59, GBP: 0.85013 },
};
const NINETY_DAY_XML = `<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
\t<gesmes:subject>Reference rates</gesmes:subject>
\t<gesmes:Sender>
\t\t<gesmes:name>European Central Bank</gesmes:name>
\t</gesmes:Sender>
\t<Cube>
${Object.entries(NINETY_DAY_RATES)
  .map(
    ([day, rates]) =>
      `\t\t<Cube time='${day}'>\n${Object.entries(rates)
        .map(([currency, rate]) => `\t\t\t<Cube currency='${currency}' rate='${rate}'/>`)
        .join('\n')}\n\t\t</Cube>`,
  )
  .join('\n')}
\t</Cube>
</gesmes:Envelope>
`;

/** The (date, currency) rates of the daily XML, read with a regular expression. */
function readDailyRates(): Map<string, number> {
  const text = DAILY_XML.toString('utf8');
  const day = /<Cube time='(\d{4}-\d{2}-\d{2})'>/.exec(text)![1]!;
  const rates = new Map<string, number>();
  for (const [, currency, rate] of text.matchAll(/<Cube currency='([A-Z]{3})' rate='([^']+)'\/>/g)) {
    rates.set(`${currency} ${day}`, Number(rate));
  }
  return rates;
}

describe('mmds fetch against a local stand-in for the publishers', () => {
  let server: Server;
  let base: string;
  let temp: ReturnType<typeof createTempDir>;
  let dataDir: string;
  let env: Record<string, string>;
  const requested: string[] = [];

  beforeAll(async () => {
    const files = new Map<string, Uint8Array>([
      ['/ecb/eurofxref-daily.xml', DAILY_XML],
      ['/ecb/eurofxref-hist-90d.xml', Buffer.from(NINETY_DAY_XML)],
      ['/cftc/deacot2026.zip', zipSync({ [COT_FILE]: new Uint8Array(COT_TEXT) })],
    ]);
    server = createServer((request, response) => {
      const path = new URL(request.url ?? '/', 'http://localhost').pathname;
      requested.push(path);
      const body = files.get(path);
      if (body === undefined) {
        response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    temp = createTempDir('mmds-fetch-');
    dataDir = join(temp.dir, 'data');
    env = { MMDS_DATA_DIR: dataDir };
    const catalog = await runMmds(['ingest', 'catalog', join(REPO_ROOT, 'data/catalog/catalog.yaml')], env);
    expect(catalog.code, catalog.stderr).toBe(0);
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    temp?.remove();
  });

  const fetchJson = async (source: string, path: string) => {
    const run = await runMmds(['--json', 'fetch', source, '--base-url', `${base}${path}`], env);
    expect(run.code, run.stderr).toBe(0);
    return JSON.parse(run.stdout) as {
      batch_id: string | null;
      tables: Record<string, { added: number; unchanged: number }>;
    };
  };

  it('downloads the daily and the 90-day XML and ingests both', async () => {
    requested.length = 0;
    const result = await fetchJson('ecb', '/ecb/');
    expect(requested).toEqual(['/ecb/eurofxref-daily.xml', '/ecb/eurofxref-hist-90d.xml']);
    const ninetyDayCount = Object.values(NINETY_DAY_RATES).reduce((n, day) => n + Object.keys(day).length, 0);
    expect(result.batch_id).not.toBeNull();
    expect(result.tables.observations).toMatchObject({ added: readDailyRates().size + ninetyDayCount });
    const batch = listBatches(resolveLayout(dataDir)).find((b) => b.id === result.batch_id)!;
    expect(batch.files.map((f) => [f.name, f.sha256])).toEqual([
      ['eurofxref-daily.xml', createHash('sha256').update(DAILY_XML).digest('hex')],
      ['eurofxref-hist-90d.xml', createHash('sha256').update(NINETY_DAY_XML).digest('hex')],
    ]);
  });

  it('adds nothing when the same files are fetched again', async () => {
    const before = hashTree(dataDir);
    const result = await fetchJson('ecb', '/ecb/');
    expect(result.batch_id).toBeNull();
    expect(result.tables.observations?.added).toBe(0);
    expect(hashTree(dataDir)).toEqual(before);
  });

  it('fails with one line naming the URL when the server answers 404, and changes nothing', async () => {
    const before = hashTree(dataDir);
    const run = await runMmds(['fetch', 'ecb', '--base-url', `${base}/moved/`], env);
    expect(run.code).not.toBe(0);
    const lines = readStderrMessages(run.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`${base}/moved/eurofxref-daily.xml`);
    expect(lines[0]).toContain('404');
    expect(hashTree(dataDir)).toEqual(before);
  });

  it('unpacks a zip download and ingests its one member', async () => {
    requested.length = 0;
    const result = await fetchJson('cftc', '/cftc/');
    expect(requested).toEqual(['/cftc/deacot2026.zip']);
    expect(result.batch_id).not.toBeNull();
    expect(result.tables.cot_reports).toMatchObject({
      added: readLines(join(SHARED_DATA, 'cftc', COT_FILE)).length - 1,
    });
    const batch = listBatches(resolveLayout(dataDir)).find((b) => b.id === result.batch_id)!;
    expect(batch.files).toEqual([
      { name: COT_FILE, sha256: createHash('sha256').update(COT_TEXT).digest('hex'), bytes: COT_TEXT.length },
    ]);
  });

  it('publishes what was fetched: the rates and the COT reports as the files give them', async () => {
    const publish = await runMmds(['publish'], env);
    expect(publish.code, publish.stderr).toBe(0);
    const verify = await runMmds(['verify'], env);
    expect(verify.code, verify.stdout).toBe(0);
    const layout = resolveLayout(dataDir);
    const db = await openSnapshotDb(layout, readCurrentId(layout)!);
    try {
      const rates = await db.query<{ key: string; value: number }>(
        `SELECT substr(series_key, 5) || ' ' || period AS key, value FROM observations
          WHERE series_key LIKE 'ecb.%' ORDER BY key`,
      );
      const expected = new Map(readDailyRates());
      for (const [day, values] of Object.entries(NINETY_DAY_RATES)) {
        for (const [currency, rate] of Object.entries(values)) expected.set(`${currency} ${day}`, rate);
      }
      expect(new Map(rates.map((r) => [r.key, r.value]))).toEqual(expected);

      const [header, ...rows] = readLines(join(SHARED_DATA, 'cftc', COT_FILE)).map(splitCsvLine);
      const column = (name: string) => header!.findIndex((h) => h.trim() === name);
      const row = rows[0]!;
      const code = row[column('CFTC Contract Market Code')]!.trim();
      const date = row[column('As of Date in Form YYYY-MM-DD')]!.trim();
      const reports = await db.query<{ open_interest: number }>(
        'SELECT open_interest FROM cot_reports WHERE series_key = $key AND period = $period',
        { key: `cftc.${code}.legacy`, period: date },
      );
      expect(reports).toEqual([{ open_interest: Number(row[column('Open Interest (All)')]!.trim()) }]);
    } finally {
      await db.close();
    }
  });
});
