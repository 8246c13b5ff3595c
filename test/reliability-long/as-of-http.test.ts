import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AsOfServer, checkAllAsOfCases, startAsOfServer } from '../reliability/helpers/as-of-model.ts';

/** test/reliability/as-of-http.test.ts at scale: 1,000 random revision logs (MMDS_PROPERTY_RUNS) through HTTP. */

const CASES = Number(process.env.MMDS_PROPERTY_RUNS ?? 1000);
const SEED = Number(process.env.MMDS_PROPERTY_SEED ?? Date.now() % 2 ** 31);

describe('as_of over HTTP against a reference model, long', () => {
  let served: AsOfServer;

  beforeAll(async () => {
    served = await startAsOfServer(CASES, SEED);
  });

  afterAll(async () => {
    await served?.close();
  });

  it(`answers ${CASES} random revision logs like the model (seed ${SEED})`, async () => {
    const started = performance.now();
    const requests = await checkAllAsOfCases(served, 4);
    expect(requests).toBeGreaterThanOrEqual(CASES * 3 * 2);
    expect(served.server.logs.filter((entry) => entry.event === 'internal_error')).toEqual([]);
    console.info(
      `as_of over HTTP: ${CASES} cases, ${requests} requests in ${Math.round((performance.now() - started) / 1000)} s (seed ${SEED})`,
    );
  }, 900_000);
});
