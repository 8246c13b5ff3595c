import { createHash, randomUUID } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { formatTimestamp } from '../lib/zoned-time.ts';
import { computeBackoffMs, parseRetryAfterMs, sleepMs } from './backoff.ts';
import { assertExpectedContent, type ExpectedContent } from './expected-content.ts';
import { FetchError, MIRROR_SETTING } from './fetch-error.ts';
import { readBody } from './read-body.ts';
import { classifyFailure, type Retryable, retryMessage } from './retry-failure.ts';
import type { FetchedFile, FetchRequest } from './types.ts';

/** What a download needs from the fetch request (a subset, so API clients can build one). */
export type DownloadRequest = Pick<FetchRequest, 'workDir' | 'state' | 'now' | 'http' | 'progress'>;

/** One file to download. */
export interface DownloadOptions {
  url: string;
  /** File name (or path) under `request.workDir` to write the bytes to. */
  dest: string;
  method?: 'GET' | 'POST';
  body?: string | Uint8Array;
  headers?: Record<string, string>;
  /** What the bytes must be; an HTML page or a broken zip is refused. */
  expect: ExpectedContent;
  /** Back-off sleeper; tests pass one that records delays and returns at once. */
  sleep?: (ms: number) => Promise<void>;
  /**
   * Whether to send the validators in `request.state` and treat equal bytes as unchanged.
   * Defaults to true for GET and false for POST (a POST body, not the URL, names the data).
   */
  conditional?: boolean;
}

/** A file that was downloaded and written under the work directory. */
export interface DownloadedFile extends FetchedFile {
  status: 'downloaded';
}

/** The publisher has nothing new: a 304, or the same bytes as the last ingested ones. */
export interface NotModified {
  status: 'not_modified';
  url: string;
  reason: 'http_304' | 'same_sha256';
}

/** The publisher answered 404 or 410; callers decide whether that is a failure. */
export interface NotFound {
  status: 'not_found';
  url: string;
  httpStatus: number;
}

/** What `downloadFile` found. */
export type DownloadResult = DownloadedFile | NotModified | NotFound;

type Attempt = { done: DownloadResult } | { retry: Retryable };

/**
 * Downloads one file with retries and back-off (5xx, 408, 429 with Retry-After, time-outs,
 * broken connections; a host that does not resolve, a refused connection, a blocked port or
 * another 4xx fails at once), conditional GET, a size cap and content checks; the file appears
 * under its final name only when complete, so a failure leaves nothing in the work directory.
 */
export async function downloadFile(
  request: DownloadRequest,
  options: DownloadOptions,
): Promise<DownloadResult> {
  const attempts = request.http.retries + 1;
  const sleep = options.sleep ?? sleepMs;
  for (let attempt = 1; ; attempt += 1) {
    const outcome = await attemptDownload(request, options);
    if ('done' in outcome) return outcome.done;
    const failure = outcome.retry;
    if (!failure.retry || attempt >= attempts) throw failure.final(attempt);
    const backoff = computeBackoffMs(request.http.backoffMs, attempt);
    const retryAfter = parseRetryAfterMs(failure.retryAfter, request.now());
    const delay = Math.max(backoff, retryAfter ?? 0);
    request.progress(retryMessage(options.url, failure, delay, attempt + 1, attempts));
    await sleep(delay);
  }
}

async function attemptDownload(request: DownloadRequest, options: DownloadOptions): Promise<Attempt> {
  const { url } = options;
  const method = options.method ?? 'GET';
  const conditional = options.conditional ?? method === 'GET';
  const previous = conditional ? request.state.get(url) : null;
  const headers: Record<string, string> = { 'user-agent': request.http.userAgent, ...options.headers };
  if (previous?.etag) headers['if-none-match'] = previous.etag;
  if (previous?.last_modified) headers['if-modified-since'] = previous.last_modified;

  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, request.http.timeoutMs);
  try {
    const init: RequestInit = { method, headers, signal: controller.signal, redirect: 'follow' };
    if (options.body !== undefined) init.body = options.body;
    const response = await fetch(url, init);
    const status = response.status;
    if (status === 304 && previous !== null) {
      await response.body?.cancel();
      return { done: { status: 'not_modified', url, reason: 'http_304' } };
    }
    if (status === 404 || status === 410) {
      await response.body?.cancel();
      return { done: { status: 'not_found', url, httpStatus: status } };
    }
    // 408 and 429 ask the client to come back; every other 4xx would be answered the same way.
    if (status === 408 || status === 429 || status >= 500) {
      await response.body?.cancel().catch(() => {});
      return { retry: classifyFailure(url, { status, retryAfter: response.headers.get('retry-after') }) };
    }
    if (status < 200 || status >= 300) {
      await response.body?.cancel().catch(() => {});
      throw new FetchError(
        url,
        `HTTP ${status}; check the base URL (${MIRROR_SETTING}) and that the file still exists there`,
        {
          kind: 'http',
          status,
        },
      );
    }
    try {
      assertExpectedContent(url, options.expect, response.headers.get('content-type'), null);
    } catch (error) {
      await response.body?.cancel().catch(() => {});
      throw error;
    }
    const { bytes } = await readBody(response, url, request.http.maxBytes, () => controller.abort());
    assertExpectedContent(url, options.expect, null, bytes);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    if (previous !== null && previous.sha256 === sha256) {
      return { done: { status: 'not_modified', url, reason: 'same_sha256' } };
    }
    const path = await writeComplete(resolve(request.workDir, options.dest), bytes);
    return {
      done: {
        status: 'downloaded',
        path,
        url,
        member: null,
        retrieved_at: formatTimestamp(request.now()),
        sha256,
        bytes: bytes.length,
        etag: response.headers.get('etag'),
        last_modified: response.headers.get('last-modified'),
      },
    };
  } catch (error) {
    if (timedOut) return { retry: classifyFailure(url, { timeoutMs: request.http.timeoutMs }) };
    if (error instanceof FetchError) {
      if (error.kind === 'truncated') return { retry: classifyFailure(url, { truncated: error }) };
      throw error;
    }
    return { retry: classifyFailure(url, { network: error }) };
  } finally {
    clearTimeout(timer);
  }
}

/** Writes to a temporary sibling, then renames: the final name only ever holds a whole file. */
async function writeComplete(path: string, bytes: Uint8Array): Promise<string> {
  await mkdir(dirname(path), { recursive: true });
  const temporary = resolve(dirname(path), `.${basename(path)}.part-${randomUUID()}`);
  try {
    await writeFile(temporary, bytes);
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  return path;
}
