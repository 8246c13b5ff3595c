import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEventStreams, type StreamRequest } from '../../../src/server/event-streams.ts';
import { createHeaders } from '../../../src/server/response-headers.ts';
import { createSnapshotManager } from '../../../src/server/snapshot-manager.ts';
import { resolveLayout } from '../../../src/store/layout.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';

/**
 * A stream request that reaches a server shutting down (on a keep-alive connection opened before
 * its close, or still reading its resume point when close() ran) is answered with a stream that
 * ends at once on a connection that closes: the EventSource client reconnects, as after any ended
 * stream. A 503 would stop it for good (an EventSource gives up on any status but 200), which is
 * how events.test's client was lost when the first of its two servers closed.
 */
describe('event streams of a closing server', () => {
  const temp = createTempDir('mmds-streams-close-');
  afterAll(() => temp.remove());

  const setUp = async () => {
    const layout = resolveLayout(join(temp.dir, 'data'));
    const snapshots = await createSnapshotManager({
      layout,
      open: () => Promise.reject(new Error('no snapshot in this store')),
      log: () => {},
      pollMs: 0,
    });
    const logged: Array<Record<string, unknown>> = [];
    const streams = createEventStreams(
      { snapshots, layout, log: (entry) => logged.push(entry) },
      { heartbeatMs: 60_000, perKey: 2, perAddress: 2, max: 10, drainMs: 1000 },
    );
    return { snapshots, streams };
  };
  const request = (): StreamRequest => ({
    request: new Request('http://localhost/api/v1/events', { headers: { accept: 'text/event-stream' } }),
    headers: createHeaders('req-1'),
    keyId: null,
    addressBucket: 'ip:192.0.2.1',
    after: null,
    filters: {},
    view: { keyed: false, cotHistory: false },
  });
  const expectEndedStream = async (response: Response) => {
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(response.headers.get('connection')).toBe('close');
    expect(await response.text()).toBe('retry: 3000\n: the server is shutting down; reconnect\n\n');
  };

  it('answers a stream still starting when close() runs with an ended stream, and frees its place', async () => {
    const { snapshots, streams } = await setUp();
    const opening = streams.open(request());
    streams.close();
    await expectEndedStream(await opening);
    expect(streams.count('ip:192.0.2.1')).toBe(0);
    await snapshots.close();
  });

  it('answers a stream asked for after close() the same way, without counting it', async () => {
    const { snapshots, streams } = await setUp();
    streams.close();
    for (let i = 0; i < 3; i++) await expectEndedStream(await streams.open(request()));
    expect(streams.count('ip:192.0.2.1')).toBe(0);
    await snapshots.close();
  });

  it('opens streams with Connection: close before close() (a reconnect never reuses their socket)', async () => {
    const { snapshots, streams } = await setUp();
    const response = await streams.open(request());
    expect(response.status).toBe(200);
    expect(response.headers.get('connection')).toBe('close');
    expect(streams.count('ip:192.0.2.1')).toBe(1);
    streams.close();
    await response.body?.cancel();
    await snapshots.close();
  });
});
