/**
 * Regenerates data/sample/: invented SAMPLE values in the publishers' exact file formats, plus
 * subsets of the real reference lists copied verbatim. Deterministic: the same bytes every run.
 * Needs ../shared/data (the real files) for the CFTC headers and the reference lists.
 * Run: npx node scripts/make-sample-data.ts
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDuckDb } from '../src/db/duckdb.ts';
import { BLS_VINTAGES, makeBlsSample } from './sample-data/bls.ts';
import { makeLegacySample } from './sample-data/cftc-legacy.ts';
import { makeTffSample } from './sample-data/cftc-tff.ts';
import { makeEcbSample } from './sample-data/ecb.ts';
import { makeFredSample } from './sample-data/fred.ts';
import { makePipeline } from './sample-data/pipeline.ts';
import { createRandom } from './sample-data/random.ts';
import { makeReferenceSubsets } from './sample-data/reference.ts';

const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));
const SAMPLE_DIR = join(REPO_ROOT, 'data/sample');
const SHARED_DATA = join(REPO_ROOT, '../shared/data');

/** The first line of a real file, without its line ending. */
function readHeaderLine(file: string): string {
  const text = readFileSync(join(SHARED_DATA, file), 'utf8');
  return text.slice(0, text.indexOf('\n')).replace(/\r$/, '');
}

const outputs = new Map<string, string>();

const ecb = makeEcbSample(createRandom('ecb'));
outputs.set('ecb/eurofxref-hist.csv', ecb.historyCsv);
outputs.set('ecb/eurofxref-daily.xml', ecb.dailyXml);

const legacy = makeLegacySample(
  createRandom('cftc-legacy'),
  readHeaderLine('cftc/legacy_futures_only_2025_annual.txt'),
);
outputs.set('cftc/legacy_futures_only_sample.txt', legacy.text);
outputs.set(
  'cftc/tff_futures_only_sample.txt',
  makeTffSample(
    createRandom('cftc-tff'),
    readHeaderLine('cftc/tff_futures_only_2026_FinFutYY.txt'),
    legacy.euroFx,
  ),
);

const blsFiles = BLS_VINTAGES.map((vintage) => `bls/bls_api_v2_sample_vintage_${vintage.date}.json`);
makeBlsSample(createRandom('bls')).forEach((text, index) => {
  outputs.set(blsFiles[index]!, text);
});

outputs.set('fred/northwind_FCI_sample.csv', makeFredSample(createRandom('fred')));

const instance = await openDuckDb();
const connection = await instance.connect();
try {
  for (const [path, text] of await makeReferenceSubsets(connection, SHARED_DATA)) outputs.set(path, text);
} finally {
  connection.closeSync();
}

outputs.set('pipeline.json', `${JSON.stringify(makePipeline({ bls: blsFiles }), null, 2)}\n`);

for (const [path, text] of outputs) {
  const target = join(SAMPLE_DIR, path);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, text);
  process.stdout.write(`wrote data/sample/${path} (${Buffer.byteLength(text)} bytes)\n`);
}
