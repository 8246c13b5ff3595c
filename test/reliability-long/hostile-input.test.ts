import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server-fixture.ts';
import { findContractViolations } from '../reliability/helpers/contract-checks.ts';
import { assertHostileRequests, type HostileKeys } from '../reliability/helpers/hostile-requests.ts';
import { rawGet, sendRaw } from '../reliability/helpers/raw-http.ts';
import {
  createServedSample,
  issueTestKey,
  runKeysCommand,
  type ServedSample,
} from '../reliability/helpers/served-sample.ts';

/**
 * test/reliability/hostile-input.test.ts at scale, with dist/ built so that public requests are
 * answered from the in-memory static site (the production path) as well as live: 10,000
 * generated requests and 1,000 requests of random raw bytes.
 */

const GENERATED_REQUESTS = 10_000;
const RAW_RUNS = 1_000;

describe('hostile HTTP input, long', () => {
  let sample: ServedSample;
  let server: TestServer;
  let keys: HostileKeys;

  beforeAll(async () => {
    sample = await createServedSample({ build: true });
    const good = await issueTestKey(sample.env, {
      scopes: 'cot:history,macro:history,observations:read',
      rateLimit: 100_000,
    });
    const narrow = await issueTestKey(sample.env, { scopes: 'cot:history', rateLimit: 100_000 });
    const revoked = await issueTestKey(sample.env, { scopes: 'observations:read' });
    await runKeysCommand(sample.env, ['revoke', revoked.id]);
    const expired = await issueTestKey(sample.env, {
      scopes: 'observations:read',
      expires: '2020-06-01',
      now: () => new Date('2020-01-01T00:00:00Z'),
    });
    keys = {
      good: good.plaintext,
      narrow: narrow.plaintext,
      revoked: revoked.plaintext,
      expired: expired.plaintext,
    };
    server = await startTestServer({
      dataDir: sample.dataDir,
      distDir: sample.distDir,
      anonymousLimit: 100_000,
    });
  });

  afterAll(async () => {
    await server?.close();
    sample?.remove();
  });

  it(`answers ${GENERATED_REQUESTS} generated requests within the contract, from dist/ and live`, async () => {
    const loaded = server.logs.find((entry) => entry.event === 'static_loaded');
    expect(Number(loaded?.files)).toBeGreaterThan(100);
    const started = performance.now();
    const stats = await assertHostileRequests(server.url, sample, keys, GENERATED_REQUESTS);
    expect(stats.requests).toBe(GENERATED_REQUESTS);
    expect(server.logs.filter((entry) => entry.event === 'internal_error')).toEqual([]);
    expect((await fetch(`${server.url}/api/v1/status`)).status).toBe(200);
    console.info(
      `hostile input (long): ${JSON.stringify(stats)} in ${Math.round((performance.now() - started) / 1000)} s`,
    );
  }, 900_000);

  it(`answers ${RAW_RUNS} raw requests of random bytes in the envelope`, async () => {
    const noFraming = (byte: number) => byte !== 0x20 && byte !== 0x0d && byte !== 0x0a;
    const bytes = fc
      .uint8Array({ minLength: 1, maxLength: 200 })
      .map((array) => Buffer.from(array.filter(noFraming)));
    await fc.assert(
      fc.asyncProperty(bytes, async (target) => {
        const path = Buffer.concat([Buffer.from('/api/v1/'), target]);
        const response = await sendRaw(server.port, rawGet(path));
        expect(response.status).not.toBeNull();
        const exchange = {
          method: 'GET',
          target: path.toString('latin1'),
          ...response,
          status: response.status!,
        };
        expect(findContractViolations(exchange)).toEqual([]);
      }),
      { numRuns: RAW_RUNS },
    );
    expect((await fetch(`${server.url}/api/v1/status`)).status).toBe(200);
  }, 300_000);
});
