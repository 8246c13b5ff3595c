import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveLayout, snapshotDir } from '../../../src/store/layout.ts';
import { readManifest } from '../../../src/store/manifest.ts';
import { REPO_ROOT } from '../../helpers/paths.ts';
import { createSampleSnapshot, type SnapshotFixture } from '../../helpers/snapshot-fixture.ts';

/**
 * `mmds mcp` opens snapshots as `mmds serve` does (src/server/runtime.ts, issue 34 item 4): a
 * snapshot whose data file no longer matches the manifest's sha256 is refused before DuckDB reads
 * it, so a tool call answers "no snapshot" instead of numbers from a damaged page. It used to open
 * the files unchecked and answer from them.
 */
describe('mmds mcp with a damaged snapshot', () => {
  let fixture: SnapshotFixture;
  const clients: Client[] = [];

  beforeAll(async () => {
    fixture = await createSampleSnapshot();
  });

  afterAll(async () => {
    for (const client of clients) await client.close();
    fixture?.remove();
  });

  const connect = async (): Promise<{ client: Client; stderr: () => string }> => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(REPO_ROOT, 'bin/mmds.js'), 'mcp'],
      env: { PATH: process.env.PATH ?? '', ...fixture.env },
      stderr: 'pipe',
    });
    let text = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
    });
    const client = new Client({ name: 'mmds-test', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    return { client, stderr: () => text };
  };

  const status = async (client: Client) => {
    const result = await client.callTool({ name: 'get_status', arguments: {} });
    // A tool error is its JSON envelope as text; an answer is the REST body, structured.
    return (
      result.isError ? JSON.parse((result.content as { text: string }[])[0]!.text) : result.structuredContent
    ) as { data?: unknown; error?: { code: string; message: string } };
  };

  it('answers from the intact snapshot, and refuses it once a data page is damaged', async () => {
    const intact = await connect();
    const before = await status(intact.client);
    expect(before.error).toBeUndefined();
    expect(before.data).toBeTruthy();

    // Same size, 64 flipped bytes in the middle of the largest observations file: DuckDB would
    // open it (its footer is intact); only the checksum tells.
    const layout = resolveLayout(fixture.dataDir);
    const manifest = readManifest(layout, fixture.snapshotId);
    const [largest] = [...manifest.tables.observations!.files].sort((x, y) => y.bytes - x.bytes);
    const file = join(snapshotDir(layout, fixture.snapshotId), largest!.file);
    const bytes = readFileSync(file);
    const from = Math.floor(bytes.length / 3);
    for (let i = from; i < from + 64; i++) bytes[i] = bytes[i]! ^ 0xff;
    writeFileSync(file, bytes);

    const damaged = await connect();
    const answer = await status(damaged.client);
    expect(answer.error?.code).toBe('unavailable');
    const refused = damaged
      .stderr()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { event?: string; snapshot?: string; error?: string })
      .find((entry) => entry.event === 'snapshot_refused');
    expect(refused?.snapshot).toBe(fixture.snapshotId);
    expect(refused?.error).toContain(largest!.file);
  });
});
