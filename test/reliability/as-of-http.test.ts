import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AsOfServer,
  checkAllAsOfCases,
  checkAsOfCaseOverMcp,
  startAsOfServer,
} from './helpers/as-of-model.ts';

/**
 * as_of through the whole stack: random revision logs (ties, boundaries, instants before the
 * first knowledge time, tiny pages) are ingested, published and served, and every answer of
 * GET /api/v1/observations over HTTP must equal the in-memory reference model. All cases live
 * in one snapshot (one series set each), so one server answers them all; the long suite runs
 * 1,000 cases. A failure names the seed and case: MMDS_PROPERTY_SEED replays it.
 */

const CASES = 100;
const SEED = Number(process.env.MMDS_PROPERTY_SEED ?? Date.now() % 2 ** 31);

describe('as_of over HTTP against a reference model', () => {
  let served: AsOfServer;

  beforeAll(async () => {
    served = await startAsOfServer(CASES, SEED);
  });

  afterAll(async () => {
    await served?.close();
  });

  it(`answers ${CASES} random revision logs like the model (seed ${SEED})`, async () => {
    const requests = await checkAllAsOfCases(served, 4);
    expect(requests).toBeGreaterThanOrEqual(CASES * 3 * 2);
    expect(served.server.logs.filter((entry) => entry.event === 'internal_error')).toEqual([]);
    console.info(`as_of over HTTP: ${CASES} cases, ${requests} requests (seed ${SEED})`);
  });

  // The same model, through the MCP tool of POST /mcp (issue 25): an agent's as_of answer equals
  // the REST answer to the same request, and holds nothing known after as_of.
  it(`answers get_observations and get_series_history over MCP like the REST API and the model (${CASES} cases, seed ${SEED})`, async () => {
    const client = new Client({ name: 'mmds-as-of', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${served.server.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${served.key}` } },
      }),
    );
    try {
      const calls = await checkAllAsOfCases(served, 4, (testCase) =>
        checkAsOfCaseOverMcp(client, served.server.url, served.key, testCase, SEED),
      );
      expect(calls).toBeGreaterThanOrEqual(CASES * 3 * 2);
      console.info(`as_of over MCP: ${CASES} cases, ${calls} tool calls (seed ${SEED})`);
    } finally {
      await client.close();
    }
  });

  it('refuses an as_of in the future and answers one before every observation with an empty list', async () => {
    const get = (asOf: string) =>
      fetch(`${served.server.url}/api/v1/observations?series=t.c0a&as_of=${asOf}`, {
        headers: { Authorization: `Bearer ${served.key}` },
      });
    const future = new Date(Date.now() + 86_400_000).toISOString().slice(0, 19);
    const refused = await get(`${future}Z`);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('invalid_parameter');
    const early = await get('1999-12-31T23:59:59Z');
    expect(early.status).toBe(200);
    const body = (await early.json()) as { data: unknown[]; meta: { as_of: string } };
    expect(body.data).toEqual([]);
    expect(body.meta.as_of).toBe('1999-12-31T23:59:59Z');
  });
});
