import { FetchError, MIRROR_SETTING } from './fetch-error.ts';
import { fetchPublisherFile } from './publisher-file.ts';
import type { Fetcher, FetchRequest, FetchResult } from './types.ts';

/**
 * The ECB's euro foreign exchange reference rates under https://www.ecb.europa.eu/stats/eurofxref/:
 * `eurofxref-hist.zip` (one CSV, every working day since 1999) and `eurofxref-daily.xml` (the
 * latest day). The full history is needed once; after that the daily file keeps it current.
 */
export interface EcbFetchOptions {
  /** Whether the store already holds the ECB history (then only the daily file is fetched). */
  hasHistory: boolean;
}

const HISTORY_PATH = 'stats/eurofxref/eurofxref-hist.zip';
const DAILY_PATH = 'stats/eurofxref/eurofxref-daily.xml';

/** Downloads the ECB history zip (first run) or the daily XML (afterwards). */
export async function fetchEcbFiles(request: FetchRequest, options: EcbFetchOptions): Promise<FetchResult> {
  const path = options.hasHistory ? DAILY_PATH : HISTORY_PATH;
  const found = await fetchPublisherFile(request, { path, expect: options.hasHistory ? 'xml' : 'zip' });
  const result: FetchResult = { ingests: [], unchanged: [], notices: [] };
  if (found.status === 'not_found') {
    throw new FetchError(
      found.url,
      `HTTP ${found.httpStatus}: the ECB has no such file; check the base URL (${MIRROR_SETTING})`,
      {
        kind: 'not_found',
        status: found.httpStatus,
      },
    );
  }
  if (found.status === 'not_modified') result.unchanged.push(found.url);
  else result.ingests.push({ source: 'ecb', files: found.files, options: {} });
  return result;
}

/** The ECB euro reference rates. */
export const ecbFetcher: Fetcher<EcbFetchOptions> = {
  id: 'ecb',
  defaultBaseUrl: 'https://www.ecb.europa.eu/',
  fetch: fetchEcbFiles,
};
