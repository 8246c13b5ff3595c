/**
 * Query limits of the BLS Public Data API (bls.gov/developers/api_faqs.htm): version 2.0 needs
 * a registration key and allows 50 series and 20 years per query, 500 queries a day; version
 * 1.0 needs none and allows 25 series, 10 years and 25 queries a day.
 */
export interface BlsApiVersion {
  /** Path of the data endpoint under the publisher root. */
  path: string;
  seriesPerQuery: number;
  yearsPerQuery: number;
  queriesPerDay: number;
}

/** Version 2.0, for callers with a registration key. */
export const BLS_API_V2: BlsApiVersion = {
  path: 'publicAPI/v2/timeseries/data/',
  seriesPerQuery: 50,
  yearsPerQuery: 20,
  queriesPerDay: 500,
};

/** Version 1.0, the unregistered API. */
export const BLS_API_V1: BlsApiVersion = {
  path: 'publicAPI/v1/timeseries/data/',
  seriesPerQuery: 25,
  yearsPerQuery: 10,
  queriesPerDay: 25,
};

/** One query: a group of series over a span of years. */
export interface BlsQuery {
  seriesIds: string[];
  startYear: number;
  endYear: number;
}

/** BLS ids are upper-case letters and digits (the API also allows `_`, `-` and `#`). */
const SERIES_ID = /^[A-Z0-9_#-]+$/;

/**
 * Splits a request into queries within one version's limits: year spans oldest first, each
 * span asked for every group of series; duplicate ids are asked for once.
 */
export function planBlsQueries(
  seriesIds: readonly string[],
  startYear: number,
  endYear: number,
  version: BlsApiVersion,
): BlsQuery[] {
  const ids = [...new Set(seriesIds)];
  if (ids.length === 0) throw new Error('BLS API: no series ids to fetch');
  const bad = ids.find((id) => !SERIES_ID.test(id));
  if (bad !== undefined)
    throw new Error(`BLS API: "${bad}" is not a BLS series id (upper-case letters and digits)`);
  for (const year of [startYear, endYear]) {
    if (!Number.isInteger(year) || year < 1000 || year > 9999) {
      throw new Error(`BLS API: ${year} is not a four-digit year`);
    }
  }
  if (startYear > endYear) throw new Error(`BLS API: start year ${startYear} is after end year ${endYear}`);
  const queries: BlsQuery[] = [];
  for (let first = startYear; first <= endYear; first += version.yearsPerQuery) {
    const last = Math.min(first + version.yearsPerQuery - 1, endYear);
    for (let index = 0; index < ids.length; index += version.seriesPerQuery) {
      queries.push({
        seriesIds: ids.slice(index, index + version.seriesPerQuery),
        startYear: first,
        endYear: last,
      });
    }
  }
  return queries;
}
