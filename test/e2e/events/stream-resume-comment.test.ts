import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveLayout } from '../../../src/store/layout.ts';
import { readCurrentId } from '../../../src/store/manifest.ts';
import { REPO_ROOT, SAMPLE_DATA } from '../../helpers/paths.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';

/**
 * The comment that opens an SSE stream names where it starts (docs/api/events.md, Stream): a
 * client resuming with Last-Event-ID (or ?after) reads its own resume point there, not the end of
 * the log (issue 36).
 */
describe('the opening comment of a resumed event stream', () => {
  const temp = createTempDir('mmds-resume-comment-');
  const dataDir = join(temp.dir, 'data');
  const env = { MMDS_DATA_DIR: dataDir, MMDS_DIST_DIR: join(temp.dir, 'dist') };
  let server: TestServer;
  let snapshot: string;

  beforeAll(async () => {
    const at = () => new Date('2026-11-20T10:00:00Z');
    for (const argv of [
      ['ingest', 'catalog', join(REPO_ROOT, 'data/catalog/catalog.yaml')],
      ['ingest', 'ecb', join(SAMPLE_DATA, 'ecb/eurofxref-hist_2025-01-02_to_2026-04-13.csv')],
      ['publish'],
    ]) {
      const result = await runMmds(argv, env, at);
      expect(result.code, `${argv.join(' ')}: ${result.stderr}`).toBe(0);
    }
    snapshot = readCurrentId(resolveLayout(dataDir))!;
    server = await startTestServer({ dataDir, distDir: join(temp.dir, 'no-dist'), pollMs: 100 });
  });

  afterAll(async () => {
    await server?.close();
    temp.remove();
  });

  /** The stream's first message (retry and comment), then the stream is dropped. */
  const opening = async (path: string, headers: Record<string, string> = {}) => {
    const controller = new AbortController();
    const response = await fetch(`${server.url}${path}`, {
      headers: { Accept: 'text/event-stream', ...headers },
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('\n\n')) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    return text.slice(0, text.indexOf('\n\n'));
  };

  it('names the Last-Event-ID it resumes from, which wins over ?after, and the end of the log without one', async () => {
    const log = (await (await fetch(`${server.url}/api/v1/events?limit=1000`)).json()) as {
      data: Array<{ id: string }>;
      meta: { next_after: string };
    };
    expect(log.data.length).toBeGreaterThan(3);
    const resume = log.data[1]!.id;
    expect(resume).not.toBe(log.meta.next_after);
    expect(await opening('/api/v1/events', { 'Last-Event-ID': resume })).toBe(
      `retry: 3000\n: events after ${resume}`,
    );
    expect(await opening(`/api/v1/events?after=${log.data[2]!.id}`, { 'Last-Event-ID': resume })).toBe(
      `retry: 3000\n: events after ${resume}`,
    );
    expect(await opening(`/api/v1/events?after=${log.data[2]!.id}`)).toBe(
      `retry: 3000\n: events after ${log.data[2]!.id}`,
    );
    expect(log.meta.next_after.startsWith(`${snapshot}:`)).toBe(true);
    expect(await opening('/api/v1/events')).toBe(`retry: 3000\n: events after ${log.meta.next_after}`);
  });
});
