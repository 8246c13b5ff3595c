import { type ApiAnswer, type ApiCall, createEmulatedApi, type EmulatedApi } from './publisher-apis.ts';
import { type BlsDataRow, REAL_BLS_ERROR, readRecordedBlsResponse } from './publisher-apis-bls-data.ts';

/** What the emulated BLS Public Data API knows and how strict it is. */
export interface BlsApiEmulatorOptions {
  /** Series id → data rows (from readRealBlsSeries: real values only). */
  series: Record<string, readonly BlsDataRow[]>;
  /** Queries a day per registration key (or per unregistered caller); default 500 with a key, 25 without. */
  quotaPerDay?: number;
  /** Refuse v2 requests that carry no registration key. */
  requireKey?: boolean;
  /** The keys BLS has issued; any other key is refused. Default: every key is accepted. */
  validKeys?: readonly string[];
}

/** The emulated API, with its request log and fault queue. */
export interface BlsApiEmulator extends EmulatedApi {
  /** The JSON bodies of the data requests, in order. */
  bodies(): Array<Record<string, unknown>>;
}

/** Per-version limits, from bls.gov/developers/api_faqs.htm ("Version 2.0 (Registered)" vs 1.0). */
const LIMITS = {
  registered: { series: 50, years: 20, queries: 500 },
  unregistered: { series: 25, years: 10, queries: 25 },
};

const PATH = /^\/publicAPI\/(v1|v2)\/timeseries\/data\/?$/;

/**
 * Emulates POST publicAPI/v1|v2/timeseries/data/ of api.bls.gov with its limits and its answers,
 * all HTTP 200 with a status in the body: REQUEST_SUCCEEDED (with "Series does not exist for
 * Series X", "No Data Available for Series X Year: Y" or "Year range has been reduced to the
 * system-allowed limit of N years." messages), REQUEST_NOT_PROCESSED (daily threshold, invalid
 * key, too many series) and REQUEST_FAILED_INVALID_PARAMETERS (the recorded bad end year body).
 */
export function createBlsApiEmulator(options: BlsApiEmulatorOptions): BlsApiEmulator {
  const used = new Map<string, number>();
  const api = createEmulatedApi('publicAPI/', (call) => answer(call, options, used));
  return {
    ...api,
    bodies: () =>
      api.requests
        .filter((call) => PATH.test(call.path))
        .map((call) => JSON.parse(call.body) as Record<string, unknown>),
  };
}

function answer(call: ApiCall, options: BlsApiEmulatorOptions, used: Map<string, number>): ApiAnswer {
  const match = PATH.exec(call.path);
  if (!match || call.method !== 'POST') return { status: 404, json: { error: 'not found' } };
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(call.body) as Record<string, unknown>;
  } catch {
    return notProcessed('Request could not be serviced, as the request body is not valid JSON.');
  }
  const key = match[1] === 'v2' && typeof body.registrationkey === 'string' ? body.registrationkey : null;
  if (key !== null && options.validKeys !== undefined && !options.validKeys.includes(key)) {
    // The API echoes the key it refuses (as reported by users of the API).
    return notProcessed(`The key:${key} provided by the User is invalid.`);
  }
  if (match[1] === 'v2' && key === null && options.requireKey) {
    return notProcessed('The key: provided by the User is invalid.');
  }
  const limits = key === null ? LIMITS.unregistered : LIMITS.registered;
  const quota = options.quotaPerDay ?? limits.queries;
  const caller = key ?? '(unregistered)';
  const count = (used.get(caller) ?? 0) + 1;
  used.set(caller, count);
  if (count > quota) {
    return notProcessed(
      `Request could not be serviced, as the daily threshold for total number of requests allocated to the user with registration key ${key ?? ''} has been reached.`,
    );
  }
  const ids = Array.isArray(body.seriesid) ? body.seriesid.map(String) : [];
  if (ids.length > limits.series) {
    // Wording not found verbatim in any recorded response; the status and body form are the API's.
    return notProcessed(
      `Request could not be serviced, as the number of series requested exceeds the limit of ${limits.series} series per query.`,
    );
  }
  const start = Number(body.startyear);
  let end = Number(body.endyear);
  if (!/^\d{4}$/.test(String(body.endyear)) || end < start)
    return { status: 200, json: readRecordedBlsResponse(REAL_BLS_ERROR) };
  const message: string[] = [];
  if (end - start + 1 > limits.years) {
    // The API keeps the first years of the range and drops the rest.
    end = start + limits.years - 1;
    message.push(`Year range has been reduced to the system-allowed limit of ${limits.years} years.`);
  }
  const series = ids.map((id) => {
    const rows = options.series[id];
    if (rows === undefined) {
      message.push(`Series does not exist for Series ${id}`);
      return { seriesID: id, data: [] };
    }
    const data = rows.filter((row) => Number(row.year) >= start && Number(row.year) <= end);
    for (let year = start; year <= end; year++) {
      if (!data.some((row) => Number(row.year) === year))
        message.push(`No Data Available for Series ${id} Year: ${year}`);
    }
    return { seriesID: id, data };
  });
  return {
    status: 200,
    json: { status: 'REQUEST_SUCCEEDED', responseTime: 41, message, Results: { series } },
  };
}

function notProcessed(text: string): ApiAnswer {
  return {
    status: 200,
    json: { status: 'REQUEST_NOT_PROCESSED', responseTime: 0, message: [text], Results: {} },
  };
}
