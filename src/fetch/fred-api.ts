import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { addDays } from '../lib/zoned-time.ts';
import { FetchError, MIRROR_SETTING } from './fetch-error.ts';
import { getFredApi } from './fred-api-request.ts';
import type { FetchedFile, FetchedIngest, Fetcher, FetchRequest } from './types.ts';

/** What to ask FRED/ALFRED for. */
export interface FredApiOptions {
  /** FRED ids and the series keys their values are filed under (e.g. PAYEMS → bls.CES0000000001). */
  series: Array<{ fredId: string; seriesKey: string }>;
  /** The API key (MMDS_FRED_API_KEY, read by the caller); FRED answers nothing without one. */
  apiKey: string;
  /** Vintage dates per observations request; FRED refuses more than 2000 (tests use fewer). */
  vintageDatesPerRequest?: number;
}

/** FRED's limit on vintage dates in the real-time period of one observations request. */
export const FRED_MAX_VINTAGE_DATES = 2000;
/** The largest pages FRED serves: vintage dates and observations. */
const VINTAGE_PAGE = 10_000;
const OBSERVATION_PAGE = 100_000;
const EARLIEST = '1776-07-04';
const LATEST = '9999-12-31';

const pageSchema = z.object({
  count: z.number().int().nonnegative(),
  offset: z.number().int().nonnegative(),
});
const vintagePageSchema = pageSchema.extend({ vintage_dates: z.array(z.string()) });
const observationPageSchema = pageSchema.extend({ observations: z.array(z.unknown()) });

/**
 * FRED/ALFRED: for each series, every vintage date (fred/series/vintagedates, paged), then the
 * observations with their real-time periods (fred/series/observations, output_type 1) for each
 * run of at most 2000 vintage dates, asked as a realtime_start/realtime_end range rather than
 * as a vintage_dates list: a range keeps the URL short, and output_type 1 gives every value the
 * date it became known (realtime_start), which is the knowledge time the parser needs.
 */
export const fredApiFetcher: Fetcher<FredApiOptions> = {
  id: 'fred',
  defaultBaseUrl: 'https://api.stlouisfed.org/',
  async fetch(request, options) {
    if (!options.apiKey) {
      throw new FetchError(
        new URL('fred/', request.baseUrl).toString(),
        'FRED API: no API key; set MMDS_FRED_API_KEY (free at https://fredaccount.stlouisfed.org/apikeys)',
        { kind: 'http' },
      );
    }
    const ingests: FetchedIngest[] = [];
    for (const { fredId, seriesKey } of options.series) {
      const vintages = await getVintageDates(request, options.apiKey, fredId);
      if (vintages.length === 0) {
        throw new FetchError(request.baseUrl, `FRED API: ${fredId} has no vintage dates`, {
          kind: 'bad_content',
        });
      }
      const ranges = splitIntoRanges(vintages, options.vintageDatesPerRequest ?? FRED_MAX_VINTAGE_DATES);
      request.progress(
        `FRED ${fredId}: ${vintages.length} vintage dates, ${ranges.length} observation range(s)`,
      );
      const files: FetchedFile[] = [];
      for (const [index, range] of ranges.entries()) {
        files.push(...(await getObservations(request, options.apiKey, fredId, range, index + 1)));
      }
      ingests.push({ source: 'fred', files, options: { series: seriesKey, format: 'alfred-json' } });
    }
    return { ingests, unchanged: [], notices: [] };
  },
};

/** A real-time period holding a run of vintage dates. */
interface RealtimeRange {
  start: string;
  end: string;
}

/**
 * Cuts sorted vintage dates into runs of at most `size`; each range ends the day before the
 * next run begins (the last one never ends), so the ranges tile the whole history.
 */
export function splitIntoRanges(vintages: readonly string[], size: number): RealtimeRange[] {
  const sorted = [...new Set(vintages)].sort();
  const ranges: RealtimeRange[] = [];
  for (let index = 0; index < sorted.length; index += size) {
    const next = sorted[index + size];
    ranges.push({ start: sorted[index] as string, end: next === undefined ? LATEST : addDays(next, -1) });
  }
  return ranges;
}

async function getVintageDates(request: FetchRequest, apiKey: string, fredId: string): Promise<string[]> {
  const dates: string[] = [];
  for (let page = 1; ; page++) {
    const file = await getFredApi(request, apiKey, {
      endpoint: 'fred/series/vintagedates',
      params: {
        series_id: fredId,
        realtime_start: EARLIEST,
        realtime_end: LATEST,
        file_type: 'json',
        limit: String(VINTAGE_PAGE),
        offset: String(dates.length),
      },
      dest: `fred-${fredId}-vintagedates-${page}.json`,
    });
    const body = await readPage(file, vintagePageSchema);
    dates.push(...body.vintage_dates);
    if (body.vintage_dates.length === 0 || dates.length >= body.count) return dates;
  }
}

async function getObservations(
  request: FetchRequest,
  apiKey: string,
  fredId: string,
  range: RealtimeRange,
  rangeNumber: number,
): Promise<FetchedFile[]> {
  const files: FetchedFile[] = [];
  let received = 0;
  for (let page = 1; ; page++) {
    const file = await getFredApi(request, apiKey, {
      endpoint: 'fred/series/observations',
      params: {
        series_id: fredId,
        realtime_start: range.start,
        realtime_end: range.end,
        output_type: '1',
        file_type: 'json',
        limit: String(OBSERVATION_PAGE),
        offset: String(received),
      },
      dest: `fred-${fredId}-observations-${rangeNumber}-${page}.json`,
    });
    const body = await readPage(file, observationPageSchema);
    files.push(file);
    received += body.observations.length;
    if (body.observations.length === 0 || received >= body.count) return files;
  }
}

async function readPage<T>(file: FetchedFile, schema: z.ZodType<T>): Promise<T> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(file.path, 'utf8'));
  } catch {
    throw new FetchError(
      file.url,
      `FRED API: the answer is not JSON; check the base URL (${MIRROR_SETTING})`,
      {
        kind: 'bad_content',
      },
    );
  }
  const result = schema.safeParse(json);
  if (!result.success) {
    throw new FetchError(file.url, 'FRED API: the answer is not a FRED page (count, offset, data)', {
      kind: 'bad_content',
    });
  }
  return result.data;
}
