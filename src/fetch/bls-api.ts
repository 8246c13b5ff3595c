import { readFile } from 'node:fs/promises';
import { BLS_API_V1, BLS_API_V2, type BlsQuery, planBlsQueries } from './bls-api-limits.ts';
import { checkBlsResponse } from './bls-api-response.ts';
import { downloadFile } from './download.ts';
import { FetchError, MIRROR_SETTING } from './fetch-error.ts';
import type { FetchedFile, Fetcher, FetchRequest } from './types.ts';

/** What to ask the BLS Public Data API for. */
export interface BlsApiOptions {
  seriesIds: string[];
  startYear: number;
  endYear: number;
  /** The registration key (MMDS_BLS_API_KEY, read by the caller), or null for the unregistered API. */
  apiKey: string | null;
}

/**
 * The BLS Public Data API: POST timeseries/data/ in as many queries as the limits require
 * (version 2.0 with a key, version 1.0 without), each answer saved to its own JSON file and all
 * of them handed to the `bls` parser as one ingest.
 */
export const blsApiFetcher: Fetcher<BlsApiOptions> = {
  id: 'bls',
  defaultBaseUrl: 'https://api.bls.gov/',
  async fetch(request, options) {
    const version = options.apiKey ? BLS_API_V2 : BLS_API_V1;
    const queries = planBlsQueries(options.seriesIds, options.startYear, options.endYear, version);
    const endpoint = new URL(version.path, request.baseUrl).toString();
    if (queries.length > version.queriesPerDay) {
      request.progress(
        `BLS API: ${queries.length} queries needed, more than the ${version.queriesPerDay} a day allowed; the rest will fail`,
      );
    }
    const files: FetchedFile[] = [];
    const notices: string[] = [];
    for (const [index, query] of queries.entries()) {
      request.progress(
        `BLS API: query ${index + 1}/${queries.length} (${query.seriesIds.length} series, ${query.startYear}-${query.endYear})`,
      );
      const file = await postQuery(request, endpoint, query, options.apiKey, `bls-api-${index + 1}.json`);
      const check = checkBlsResponse(endpoint, await readFile(file.path, 'utf8'), options.apiKey);
      notices.push(...check.notices.map((notice) => `BLS API: ${notice}`));
      files.push(file);
    }
    return { ingests: [{ source: 'bls', files, options: {} }], unchanged: [], notices };
  },
};

/** The request body; version 1.0 takes only series and years, so the options go to 2.0 only. */
function createBody(query: BlsQuery, apiKey: string | null): string {
  const body: Record<string, unknown> = {
    seriesid: query.seriesIds,
    startyear: String(query.startYear),
    endyear: String(query.endYear),
  };
  if (apiKey) {
    // Footnotes come without asking; catalog and calculations would only make the answer larger.
    Object.assign(body, {
      registrationkey: apiKey,
      catalog: false,
      calculations: false,
      annualaverage: false,
    });
  }
  return JSON.stringify(body);
}

/**
 * Posts one query. The recorded URL names the query in its fragment (never sent), because every
 * query goes to the same endpoint; the key travels in the body and is never recorded.
 */
async function postQuery(
  request: FetchRequest,
  endpoint: string,
  query: BlsQuery,
  apiKey: string | null,
  dest: string,
): Promise<FetchedFile> {
  const described = `${endpoint}#startyear=${query.startYear}&endyear=${query.endYear}&seriesid=${query.seriesIds.join(',')}`;
  const result = await downloadFile(request, {
    url: endpoint,
    dest,
    method: 'POST',
    body: createBody(query, apiKey),
    headers: { 'content-type': 'application/json' },
    expect: 'json',
    conditional: false,
  });
  if (result.status === 'not_found') {
    throw new FetchError(
      endpoint,
      `BLS API: HTTP ${result.httpStatus}; check the base URL (${MIRROR_SETTING})`,
      {
        kind: 'not_found',
        status: result.httpStatus,
      },
    );
  }
  if (result.status !== 'downloaded') {
    throw new FetchError(endpoint, 'BLS API: unexpected "not modified" answer to a POST', { kind: 'http' });
  }
  const { status: _status, ...file } = result;
  return { ...file, url: described };
}
