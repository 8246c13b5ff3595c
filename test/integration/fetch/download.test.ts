import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { downloadFile } from '../../../src/fetch/download.ts';
import { openFetchState } from '../../../src/fetch/fetch-state.ts';
import {
  type LoopbackPublisher,
  startLoopbackPublisher,
  zipFiles,
} from '../../helpers/loopback-publisher.ts';
import { SHARED_DATA } from '../../helpers/paths.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';
import { createRecordingSleep, createTestRequest, expectFetchError, listFiles } from './fetch-request.ts';

const ANNUAL = readFileSync(join(SHARED_DATA, 'cftc/legacy_futures_only_2025_annual.txt'));
const ZIP = zipFiles({ 'annual.txt': ANNUAL });
const DAILY = readFileSync(join(SHARED_DATA, 'ecb/eurofxref-daily.xml'));
const ZIP_PATH = 'files/dea/history/deacot2025.zip';

describe('downloadFile against a loopback publisher', () => {
  let publisher: LoopbackPublisher;
  let temp: ReturnType<typeof createTempDir>;

  beforeAll(async () => {
    publisher = await startLoopbackPublisher({
      files: { [ZIP_PATH]: ZIP, 'daily.xml': DAILY, 'big.txt': Buffer.alloc(4096, 'a') },
    });
  });
  afterAll(() => publisher.close());
  beforeEach(() => {
    temp = createTempDir();
    publisher.requests.length = 0;
  });
  afterEach(() => {
    for (const path of [ZIP_PATH, 'daily.xml', 'big.txt']) publisher.setFault(path, null);
    temp.remove();
  });

  function request(http = {}) {
    return createTestRequest({ baseUrl: publisher.baseUrl, workDir: temp.dir, http });
  }

  it('downloads a zip, records sha256, size and validators, and sends a User-Agent', async () => {
    const req = request();
    const result = await downloadFile(req, {
      url: publisher.url(ZIP_PATH),
      dest: 'deacot2025.zip',
      expect: 'zip',
    });
    expect(result.status).toBe('downloaded');
    if (result.status !== 'downloaded') return;
    expect(readFileSync(result.path)).toEqual(ZIP);
    expect(result.bytes).toBe(ZIP.length);
    expect(result.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(result.etag).toMatch(/^"/);
    expect(result.last_modified).toBe('Wed, 01 Jan 2025 00:00:00 GMT');
    expect(result.retrieved_at).toBe('2026-03-20T12:00:00Z');
    expect(publisher.requests[0]?.headers['user-agent']).toMatch(/^mmds\/\d/);
    expect(listFiles(temp.dir)).toEqual(['deacot2025.zip']);
  });

  it('retries a 503 twice, then succeeds on the third attempt with growing back-off', async () => {
    publisher.setFault(ZIP_PATH, 'status:503x2');
    const { sleep, delays } = createRecordingSleep();
    const req = request({ retries: 4, backoffMs: 10 });
    const result = await downloadFile(req, {
      url: publisher.url(ZIP_PATH),
      dest: 'a.zip',
      expect: 'zip',
      sleep,
    });
    expect(result.status).toBe('downloaded');
    expect(publisher.requests.map((r) => r.status)).toEqual([503, 503, 200]);
    expect(delays).toHaveLength(2);
    expect(delays[0]).toBeGreaterThanOrEqual(10);
    expect(delays[1]).toBeGreaterThanOrEqual(20);
    expect(req.lines[0]).toContain('HTTP 503; retrying');
  });

  it('honours Retry-After on a 429', async () => {
    publisher.setFault(ZIP_PATH, { kind: 'status', status: 429, times: 1, retryAfter: '3' });
    const { sleep, delays } = createRecordingSleep();
    const result = await downloadFile(request(), {
      url: publisher.url(ZIP_PATH),
      dest: 'a.zip',
      expect: 'zip',
      sleep,
    });
    expect(result.status).toBe('downloaded');
    expect(delays).toEqual([3000]);
  });

  it('gives up after the retries with a FetchError that says what to do, leaving the work dir empty', async () => {
    publisher.setFault(ZIP_PATH, 'status:503');
    const { sleep } = createRecordingSleep();
    const error = await expectFetchError(
      downloadFile(request({ retries: 4 }), {
        url: publisher.url(ZIP_PATH),
        dest: 'a.zip',
        expect: 'zip',
        sleep,
      }),
    );
    expect(publisher.requests).toHaveLength(5);
    expect(error.message).toBe(
      `${publisher.url(ZIP_PATH)}: HTTP 503 after 5 attempts; the publisher may be down, try again later or point MMDS_<SOURCE>_BASE_URL at a mirror`,
    );
    expect(error.url).toBe(publisher.url(ZIP_PATH));
    expect(error.status).toBe(503);
    expect(listFiles(temp.dir)).toEqual([]);
  });

  it('reports 404 as a result, not an error', async () => {
    const url = publisher.url('files/dea/history/deacot1900.zip');
    expect(await downloadFile(request(), { url, dest: 'x.zip', expect: 'zip' })).toEqual({
      status: 'not_found',
      url,
      httpStatus: 404,
    });
  });

  it('calls a body cut short of its Content-Length a truncation, after retrying', async () => {
    publisher.setFault(ZIP_PATH, 'truncate');
    const { sleep } = createRecordingSleep();
    const error = await expectFetchError(
      downloadFile(request({ retries: 1 }), {
        url: publisher.url(ZIP_PATH),
        dest: 'a.zip',
        expect: 'zip',
        sleep,
      }),
    );
    expect(error.kind).toBe('truncated');
    expect(error.message).toMatch(/cut off after \d+ of \d+ bytes, 2 attempts/);
    expect(publisher.requests).toHaveLength(2);
    expect(listFiles(temp.dir)).toEqual([]);
  });

  it('refuses a complete response that is a truncated zip', async () => {
    const cut = ZIP.subarray(0, Math.floor(ZIP.length * 0.7));
    const local = await startLoopbackPublisher({ files: { 'cut.zip': Buffer.from(cut) } });
    try {
      const error = await expectFetchError(
        downloadFile(request(), { url: local.url('cut.zip'), dest: 'c.zip', expect: 'zip' }),
      );
      expect(error.kind).toBe('bad_zip');
      expect(error.message).toContain('the zip archive is incomplete or damaged');
      expect(listFiles(temp.dir)).toEqual([]);
    } finally {
      await local.close();
    }
  });

  it('times out a stalled server and says so', async () => {
    publisher.setFault(ZIP_PATH, 'slow');
    const { sleep } = createRecordingSleep();
    const error = await expectFetchError(
      downloadFile(request({ retries: 1, timeoutMs: 150 }), {
        url: publisher.url(ZIP_PATH),
        dest: 'a.zip',
        expect: 'zip',
        sleep,
      }),
    );
    expect(error.kind).toBe('timeout');
    expect(error.message).toContain('no complete answer within 0.15 s, 2 attempts');
    // The server logs a stalled request when the client hangs up; wait for both.
    await vi.waitFor(() => expect(publisher.requests).toHaveLength(2));
    expect(listFiles(temp.dir)).toEqual([]);
  });

  it('refuses an HTML error page where a zip was expected', async () => {
    publisher.setFault(ZIP_PATH, 'html');
    const error = await expectFetchError(
      downloadFile(request(), { url: publisher.url(ZIP_PATH), dest: 'a.zip', expect: 'zip' }),
    );
    expect(error.kind).toBe('html');
    expect(error.message).toContain('answered with an HTML page');
    expect(publisher.requests).toHaveLength(1);
  });

  it('refuses a declared size over the cap at once, and an actual body over the cap', async () => {
    const declared = await expectFetchError(
      downloadFile(request({ maxBytes: 1000 }), {
        url: publisher.url('big.txt'),
        dest: 'b.txt',
        expect: 'text',
      }),
    );
    expect(declared.kind).toBe('too_large');
    expect(declared.message).toContain('declared size (4096 bytes) exceeds the 1000-byte limit');
    const chunked = await startLoopbackPublisher({
      files: {},
      apis: [
        {
          prefix: 'stream',
          handle: (_req, res) => {
            res.end(Buffer.alloc(5000, 'b'));
          },
        },
      ],
    });
    try {
      // No Content-Length is declared for a streamed body of unknown length (chunked).
      const actual = await expectFetchError(
        downloadFile(request({ maxBytes: 1000 }), {
          url: chunked.url('stream'),
          dest: 's.txt',
          expect: 'text',
        }),
      );
      expect(actual.kind).toBe('too_large');
    } finally {
      await chunked.close();
    }
    expect(listFiles(temp.dir)).toEqual([]);
  });

  it('sends the validators of the state and answers not_modified on a 304', async () => {
    const stateFile = join(temp.dir, 'data', 'fetch-state.json');
    const workDir = join(temp.dir, 'work');
    const state = openFetchState(stateFile);
    const req = createTestRequest({ baseUrl: publisher.baseUrl, workDir, state });
    const first = await downloadFile(req, {
      url: publisher.url('daily.xml'),
      dest: 'daily.xml',
      expect: 'xml',
    });
    expect(first.status).toBe('downloaded');
    if (first.status !== 'downloaded') return;
    state.commit([first]);
    const reopened = createTestRequest({
      baseUrl: publisher.baseUrl,
      workDir,
      state: openFetchState(stateFile),
    });
    const second = await downloadFile(reopened, {
      url: publisher.url('daily.xml'),
      dest: 'daily.xml',
      expect: 'xml',
    });
    expect(second).toEqual({ status: 'not_modified', url: publisher.url('daily.xml'), reason: 'http_304' });
    expect(publisher.requests[1]?.headers['if-none-match']).toBe(first.etag);
    expect(publisher.requests[1]?.headers['if-modified-since']).toBe(first.last_modified);
  });

  it('treats identical bytes from a server without validators as unchanged', async () => {
    publisher.setFault('daily.xml', 'no-validators');
    const state = openFetchState(join(temp.dir, 'fetch-state.json'));
    const req = createTestRequest({ baseUrl: publisher.baseUrl, workDir: join(temp.dir, 'w'), state });
    const first = await downloadFile(req, { url: publisher.url('daily.xml'), dest: 'd.xml', expect: 'xml' });
    if (first.status !== 'downloaded') throw new Error('expected a download');
    expect(first.etag).toBeNull();
    state.commit([first]);
    const second = await downloadFile(req, {
      url: publisher.url('daily.xml'),
      dest: 'd2.xml',
      expect: 'xml',
    });
    expect(second).toMatchObject({ status: 'not_modified', reason: 'same_sha256' });
    expect(listFiles(join(temp.dir, 'w'))).toEqual(['d.xml']);
  });

  it('fails a refused connection at once: no retry, no back-off, a hint naming the mirror setting', async () => {
    const closed = await startLoopbackPublisher({ files: {} });
    const url = closed.url('gone.zip');
    await closed.close();
    const { sleep, delays } = createRecordingSleep();
    const req = request({ retries: 4 });
    const error = await expectFetchError(downloadFile(req, { url, dest: 'g.zip', expect: 'zip', sleep }));
    expect(error.kind).toBe('network');
    expect(error.attempts).toBe(1);
    expect(delays).toEqual([]);
    expect(req.lines).toEqual([]);
    expect(error.message).toMatch(
      /the connection was refused \(ECONNREFUSED, 127\.0\.0\.1:\d+\), not retried/,
    );
    expect(error.message).toContain('point MMDS_<SOURCE>_BASE_URL at a reachable mirror');
    expect(listFiles(temp.dir)).toEqual([]);
  });

  it('fails a blocked port at once: fetch() refuses it before connecting, so no retry could help', async () => {
    const { sleep, delays } = createRecordingSleep();
    const req = request({ retries: 4 });
    // 10080 is on the fetch standard's list of bad ports: refused whatever listens there.
    const url = 'http://127.0.0.1:10080/files/deacot2025.zip';
    const error = await expectFetchError(downloadFile(req, { url, dest: 'g.zip', expect: 'zip', sleep }));
    expect(error.kind).toBe('network');
    expect(error.attempts).toBe(1);
    expect(delays).toEqual([]);
    expect(req.lines).toEqual([]);
    expect(error.message).toMatch(/a blocked port\) \(BAD_PORT, 127\.0\.0\.1:10080\), not retried/);
  });

  it('fails a 403 at once (asking again gets the same answer) but retries a 408', async () => {
    publisher.setFault(ZIP_PATH, 'status:403');
    const { sleep, delays } = createRecordingSleep();
    const forbidden = await expectFetchError(
      downloadFile(request({ retries: 4 }), {
        url: publisher.url(ZIP_PATH),
        dest: 'a.zip',
        expect: 'zip',
        sleep,
      }),
    );
    expect(forbidden.status).toBe(403);
    expect(publisher.requests.map((r) => r.status)).toEqual([403]);
    expect(delays).toEqual([]);

    publisher.requests.length = 0;
    publisher.setFault(ZIP_PATH, 'status:408x1');
    const result = await downloadFile(request({ retries: 4, backoffMs: 10 }), {
      url: publisher.url(ZIP_PATH),
      dest: 'a.zip',
      expect: 'zip',
      sleep,
    });
    expect(result.status).toBe('downloaded');
    expect(publisher.requests.map((r) => r.status)).toEqual([408, 200]);
    expect(delays).toHaveLength(1);
  });

  it('fails a host name that does not resolve at once (the .invalid TLD never does)', async () => {
    const { sleep, delays } = createRecordingSleep();
    const req = request({ retries: 4 });
    const url = 'http://publisher.mmds-test.invalid/files/deacot2025.zip';
    const error = await expectFetchError(downloadFile(req, { url, dest: 'g.zip', expect: 'zip', sleep }));
    expect(error.kind).toBe('network');
    expect(error.attempts).toBe(1);
    expect(delays).toEqual([]);
    // ENOTFOUND with a resolver, EAI_AGAIN without one (an offline machine): both fail at once.
    expect(error.message).toMatch(/\((ENOTFOUND|EAI_AGAIN), publisher\.mmds-test\.invalid\), not retried/);
  });
});
