import { downloadFile } from './download.ts';
import { FetchError, MIRROR_SETTING } from './fetch-error.ts';
import type { FetchedFile, FetchRequest } from './types.ts';

/** One GET of the FRED API: the endpoint under the root, its parameters (without the key). */
export interface FredApiCall {
  endpoint: string;
  params: Record<string, string>;
  /** File name under the work directory. */
  dest: string;
}

/**
 * GETs one FRED API URL through downloadFile (retries, back-off, size cap) and returns the
 * file with its URL as recorded: without `api_key`. The key is added only to the URL that is
 * sent; every message that could carry it (progress lines, errors) is scrubbed first.
 */
export async function getFredApi(
  request: FetchRequest,
  apiKey: string,
  call: FredApiCall,
): Promise<FetchedFile> {
  const recorded = new URL(call.endpoint, request.baseUrl);
  for (const [name, value] of Object.entries(call.params)) recorded.searchParams.set(name, value);
  const sent = new URL(recorded);
  sent.searchParams.set('api_key', apiKey);
  const scrub = (text: string) =>
    text.split(sent.toString()).join(recorded.toString()).split(apiKey).join('<key>');
  let result: Awaited<ReturnType<typeof downloadFile>>;
  try {
    result = await downloadFile(
      { ...request, progress: (message) => request.progress(scrub(message)) },
      // Not conditional: the state is keyed by URL and the sent URL carries the key.
      { url: sent.toString(), dest: call.dest, expect: 'json', conditional: false },
    );
  } catch (error) {
    throw rewriteError(error, recorded.toString(), scrub);
  }
  if (result.status === 'not_found') {
    throw new FetchError(
      recorded.toString(),
      `FRED API: HTTP ${result.httpStatus}; check the base URL (${MIRROR_SETTING})`,
      {
        kind: 'not_found',
        status: result.httpStatus,
      },
    );
  }
  if (result.status !== 'downloaded') {
    throw new FetchError(recorded.toString(), 'FRED API: unexpected "not modified" answer', { kind: 'http' });
  }
  const { status: _status, ...file } = result;
  return { ...file, url: recorded.toString() };
}

/** A FetchError again, under the recorded URL, with the key scrubbed and the cause dropped. */
function rewriteError(error: unknown, url: string, scrub: (text: string) => string): Error {
  if (!(error instanceof FetchError)) return new Error(scrub(String((error as Error)?.message ?? error)));
  const message = scrub(
    error.message.startsWith(`${error.url}: `) ? error.message.slice(error.url.length + 2) : error.message,
  );
  // FRED answers 400 for an unknown series, a refused key and a request over its limits alike.
  const hint =
    error.status === 400
      ? ' (FRED says Bad Request: the series id may not exist, or MMDS_FRED_API_KEY is not a registered key)'
      : '';
  return new FetchError(url, `FRED API: ${message}${hint}`, {
    kind: error.kind,
    ...(error.status === null ? {} : { status: error.status }),
    attempts: error.attempts,
  });
}
