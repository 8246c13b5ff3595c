import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpServer } from '../../src/mcp/server.ts';
import { openSnapshotDb, type SnapshotDb } from '../../src/query/snapshot-db.ts';
import { ResponseCache } from '../../src/server/response-cache.ts';
import { representFor } from '../../src/server/serve-mcp.ts';
import { resolveLayout } from '../../src/store/layout.ts';
import { readCurrentId } from '../../src/store/manifest.ts';
import { type SharedSampleFixture, useSharedSample } from '../helpers/shared-sample-build.ts';

/** Tool calls in all, the first WARM_UP of them before the baseline is taken. */
const CALLS = 100_000;
const WARM_UP = 5_000;
/** The growth allowed from the baseline to the end (issue 25: the SDK has had per-request leaks). */
const MAX_GROWTH_BYTES = 20 * 1024 * 1024;

/** A full collection on demand: the heap then holds only what is still referenced. */
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** The calls, in turn: a public tool of each kind of payload, with a failure (404) among them. */
const CASES: readonly [string, Record<string, unknown>][] = [
  ['get_status', {}],
  ['get_fx_rates', { currency: 'USD,JPY' }],
  ['get_cot_market', { slug: 'gold' }],
  ['list_series', { country: 'US' }],
  ['get_cot_market', { slug: 'no-such-market' }],
];

function usage(): { heap: number; rss: number } {
  gc();
  gc();
  const { heapUsed, rss } = process.memoryUsage();
  return { heap: heapUsed, rss };
}

describe('MCP server memory over 100,000 tool calls', () => {
  let fixture: SharedSampleFixture;
  let db: SnapshotDb;

  beforeAll(async () => {
    fixture = await useSharedSample();
    const layout = resolveLayout(fixture.dataDir);
    db = await openSnapshotDb(layout, readCurrentId(layout)!, { poolSize: 2 });
  }, 600_000);

  afterAll(async () => {
    await db?.close();
    fixture?.remove();
  });

  it('grows by at most 20 MB (heap and RSS) after warm-up, one server per call as over HTTP', async () => {
    // As POST /mcp does: a new server and transport per request, closed after it.
    const cache = new ResponseCache(2000, 2 * 2 ** 20);
    const call = async (index: number): Promise<CallToolResult> => {
      const server = createMcpServer({
        snapshot: () => db,
        caller: async () => null,
        now: () => new Date('2026-11-27T00:00:00Z'),
        requestId: () => `memory-${index}`,
        log: () => {},
        publicBaseUrl: 'http://127.0.0.1:4321',
        // One cache for every call, as the server's: bounded small, so what it holds is not growth.
        represent: representFor({
          staticSite: () => null,
          cache,
          now: () => new Date('2026-11-27T00:00:00Z'),
        }),
      });
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      const client = new Client({ name: 'memory-test', version: '1.0.0' });
      await server.connect(serverSide);
      await client.connect(clientSide);
      const [name, args] = CASES[index % CASES.length]!;
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      await client.close();
      await server.close();
      return result;
    };
    let failures = 0;
    let baseline = { heap: 0, rss: 0 };
    const started = Date.now();
    for (let index = 0; index < CALLS; index++) {
      if (index === WARM_UP) baseline = usage();
      if (index > WARM_UP && index % 10_000 === 0) {
        const now = usage();
        console.log(
          `mcp-memory: ${index} calls, ${Math.round((Date.now() - started) / 1000)} s, heap +${((now.heap - baseline.heap) / 2 ** 20).toFixed(1)} MB, RSS +${((now.rss - baseline.rss) / 2 ** 20).toFixed(1)} MB`,
        );
      }
      const result = await call(index);
      if (result.isError) failures++;
    }
    const end = usage();
    const growth = { heap: end.heap - baseline.heap, rss: end.rss - baseline.rss };
    console.log(
      `mcp-memory: ${CALLS} calls in ${Math.round((Date.now() - started) / 1000)} s; after warm-up heap ${(baseline.heap / 2 ** 20).toFixed(1)} MB -> ${(end.heap / 2 ** 20).toFixed(1)} MB, RSS ${(baseline.rss / 2 ** 20).toFixed(1)} MB -> ${(end.rss / 2 ** 20).toFixed(1)} MB`,
    );
    // The unknown market is the one refusal of the cycle: every fifth call.
    expect(failures).toBe(CALLS / CASES.length);
    expect(growth.heap).toBeLessThanOrEqual(MAX_GROWTH_BYTES);
    expect(growth.rss).toBeLessThanOrEqual(MAX_GROWTH_BYTES);
  }, 3_600_000);
});
