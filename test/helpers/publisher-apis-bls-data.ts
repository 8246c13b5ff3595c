import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SHARED_DATA } from './paths.ts';

/** One data point exactly as the BLS API returns it (year, period, periodName, value, footnotes). */
export interface BlsDataRow {
  year: string;
  period: string;
  periodName: string;
  value: string;
  footnotes: unknown[];
  [field: string]: unknown;
}

/** The real responses the emulator serves from (recorded from api.bls.gov, see PROVENANCE.md). */
export const REAL_BLS_RESPONSES = [
  'bls_api_v2_cps_situation_2015.json',
  'bls_api_v2_sae_north_dakota_mining_2014_2015.json',
] as const;

/** The real error response (`REQUEST_FAILED_INVALID_PARAMETERS`, "End year is invalid."). */
export const REAL_BLS_ERROR = 'bls_api_v2_error_bad_end_year.json';

interface RecordedResponse {
  status: string;
  responseTime: number;
  message: string[];
  Results: { series?: Array<{ seriesID: string; data: BlsDataRow[] }> };
}

/** Reads one recorded BLS API response from shared/data/bls. */
export function readRecordedBlsResponse(name: string): RecordedResponse {
  return JSON.parse(readFileSync(join(SHARED_DATA, 'bls', name), 'utf8')) as RecordedResponse;
}

/**
 * The series of the real recorded responses, id → data rows in the order the API sent them:
 * LNS14000000, LNS12000000, LNS11000000, LNS13000000 (2015) and SMS38000001000000001 (2014-2015).
 */
export function readRealBlsSeries(): Record<string, BlsDataRow[]> {
  const series: Record<string, BlsDataRow[]> = {};
  for (const name of REAL_BLS_RESPONSES) {
    for (const entry of readRecordedBlsResponse(name).Results.series ?? [])
      series[entry.seriesID] = entry.data;
  }
  return series;
}
