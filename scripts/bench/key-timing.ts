/**
 * Section e of the benchmark: whether a refused key tells that its id exists (CONTRACT section 4).
 * Against a real `mmds serve` with one issued key, it sends requests with an unknown key id and
 * with the known id and a wrong secret, strictly in turns (A, B, A, B, ...: outside load hits both
 * alike), one at a time on one keep-alive connection, and compares the medians. Each request
 * comes from its own address (a trusted proxy's X-Forwarded-For), so that the anonymous limit,
 * which a refused key is counted against, never answers 429 instead of 401.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { composeKey, createKey, parseKey } from '../../src/keys/key-codec.ts';
import { createHttpCaller, percentile } from './load.ts';
import { runMmds, type ServerProcess, startMmdsServe } from './processes.ts';

/** What section e measured. */
export interface KeyTimingResult {
  path: string;
  /** Requests of each kind (measured, after the warm-up). */
  requests_each: number;
  warmup_each: number;
  /** Median and p90 latency in microseconds. */
  unknown_id: { p50_us: number; p90_us: number };
  known_id_wrong_secret: { p50_us: number; p90_us: number };
  /** unknown p50 / known p50 (1 = the same). */
  p50_ratio: number;
  /** Statuses seen (every one must be 401). */
  statuses: Record<string, number>;
}

const PATH = '/api/v1/observations?series=bls.CES0000000001&limit=1';
const REQUESTS_EACH = 1000;
const WARMUP_EACH = 200;

/** Runs section e in `dir` (its own data directory, no snapshot needed: keys are checked first). */
export async function measureKeyTiming(
  dir: string,
  log: (line: string) => void,
  servers: ServerProcess[],
): Promise<KeyTimingResult> {
  const dataDir = join(dir, 'data');
  mkdirSync(dataDir, { recursive: true });
  const env = { MMDS_DATA_DIR: dataDir, MMDS_DIST_DIR: join(dir, 'dist'), MMDS_TRUSTED_PROXIES: '1' };
  const issued = runMmds(['keys', 'issue', '--org', 'bench', '--scopes', 'observations:read', '--json'], env);
  const issuedKey = (JSON.parse(issued.stdout) as { key: string }).key;
  const known = parseKey(issuedKey)!;
  // Another random secret for the same id: well-formed, so it is looked up and compared.
  const wrongSecret = composeKey(known.id, parseKey(createKey().plaintext)!.secret);
  if (wrongSecret === issuedKey) throw new Error('the wrong secret happens to be the right one');
  const unknown = createKey().plaintext;
  log('e. key timing: starting mmds serve…');
  const server = await startMmdsServe('mmds serve (key timing)', env);
  servers.push(server);
  const http = createHttpCaller(1);
  const statuses: Record<string, number> = {};
  let address = 0;
  const timed = async (key: string): Promise<number> => {
    address++;
    const headers = {
      authorization: `Bearer ${key}`,
      'x-forwarded-for': `10.${(address >> 16) & 255}.${(address >> 8) & 255}.${address & 255}`,
    };
    const started = performance.now();
    const response = await http.fetch(`${server.url}${PATH}`, headers);
    const elapsed = performance.now() - started;
    statuses[response.status] = (statuses[response.status] ?? 0) + 1;
    return elapsed * 1000;
  };
  for (let i = 0; i < WARMUP_EACH; i++) {
    await timed(unknown);
    await timed(wrongSecret);
  }
  for (const key of Object.keys(statuses)) delete statuses[key];
  log(`e. key timing: ${REQUESTS_EACH * 2} requests in turns…`);
  const unknownUs: number[] = [];
  const knownUs: number[] = [];
  for (let i = 0; i < REQUESTS_EACH; i++) {
    // The order within a pair alternates too, so that neither kind always follows the other.
    if (i % 2 === 0) {
      unknownUs.push(await timed(unknown));
      knownUs.push(await timed(wrongSecret));
    } else {
      knownUs.push(await timed(wrongSecret));
      unknownUs.push(await timed(unknown));
    }
  }
  http.close();
  await server.stop();
  servers.splice(servers.indexOf(server), 1);
  if (Object.keys(statuses).some((status) => status !== '401'))
    throw new Error(`key timing: expected only 401 answers, got ${JSON.stringify(statuses)}`);
  const summary = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return { p50_us: percentile(sorted, 50), p90_us: percentile(sorted, 90) };
  };
  const unknownSummary = summary(unknownUs);
  const knownSummary = summary(knownUs);
  const result: KeyTimingResult = {
    path: PATH,
    requests_each: REQUESTS_EACH,
    warmup_each: WARMUP_EACH,
    unknown_id: unknownSummary,
    known_id_wrong_secret: knownSummary,
    p50_ratio: unknownSummary.p50_us / knownSummary.p50_us,
    statuses,
  };
  log(
    `e. unknown id p50 ${unknownSummary.p50_us.toFixed(0)} µs, known id + wrong secret p50 ${knownSummary.p50_us.toFixed(0)} µs, ratio ${result.p50_ratio.toFixed(3)}`,
  );
  return result;
}
