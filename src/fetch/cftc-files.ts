import { basename } from 'node:path';
import type { CftcCalendar } from '../calendar/types.ts';
import { findFirstCftcRelease } from './cftc-first-release.ts';
import { type CftcPlannedFile, type CftcPlanOptions, planCftcFiles } from './cftc-plan.ts';
import { FetchError, MIRROR_SETTING } from './fetch-error.ts';
import { fetchPublisherFile } from './publisher-file.ts';
import type { Fetcher, FetchRequest, FetchResult } from './types.ts';

export type { CftcPlannedFile, CftcReport } from './cftc-plan.ts';
export { planCftcFiles } from './cftc-plan.ts';

/** Options of the CFTC fetcher: the plan, plus the release calendar when the caller has one. */
export interface CftcFetchOptions extends CftcPlanOptions {
  /** Knows holiday shifts of the first release of a year (for the "not published yet" notice). */
  calendar: CftcCalendar;
}

// A current-year file may lag its first report (shutdowns, holidays) by this much before a 404
// stops being "not published yet" and becomes a failure.
const NOT_YET_GRACE_MS = 7 * 24 * 3600_000;

/**
 * A planned file the CFTC does not have yet: a 404, or the empty placeholder zip it serves early
 * in January. Before the year's first report is due (plus a grace week) that is a notice; later,
 * or for a past year or a multi-year archive, a failure.
 */
function describeMissing(
  planned: CftcPlannedFile,
  url: string,
  now: Date,
  options: CftcFetchOptions,
  empty = false,
): string | FetchError {
  const name = basename(planned.path);
  const year = planned.years[0]!;
  if (!planned.multiYear && year === now.getUTCFullYear()) {
    const first = findFirstCftcRelease(year, options.calendar);
    if (now.getTime() < first.releaseAt.getTime() + NOT_YET_GRACE_MS) {
      const when =
        now < first.releaseAt ? `comes out on ${first.releaseDate}` : `was due on ${first.releaseDate}`;
      return `${name} is not published yet: the CFTC's first report of ${year} (positions of ${first.reportDate}) ${when}; nothing to fetch for ${year} until then`;
    }
  }
  if (empty) {
    return new FetchError(
      url,
      `${name} is an empty zip (no member): the CFTC has published nothing in it; check --base-url and the year`,
      { kind: 'bad_zip' },
    );
  }
  return new FetchError(
    url,
    `HTTP 404: the CFTC has no ${name}; check the base URL (${MIRROR_SETTING}) and the year, the file name may have changed (see the CFTC's Historical Compressed page)`,
    { kind: 'not_found', status: 404 },
  );
}

/**
 * Downloads the CFTC's COT files for the planned years and reports: one ingest per downloaded
 * zip (its members unpacked), publisher answers of "unchanged" listed, and a current-year file
 * missing or an empty placeholder early in January reported as a notice rather than a failure
 * (nothing of it is recorded, so the next run asks again).
 */
export async function fetchCftcFiles(request: FetchRequest, options: CftcFetchOptions): Promise<FetchResult> {
  const now = request.now();
  const result: FetchResult = { ingests: [], unchanged: [], notices: [] };
  for (const planned of planCftcFiles(options, now)) {
    const found = await fetchPublisherFile(request, { path: planned.path, expect: 'zip' });
    if (found.status === 'not_modified') {
      result.unchanged.push(found.url);
      continue;
    }
    if (found.status === 'not_found') {
      const missing = describeMissing(planned, found.url, now, options);
      if (missing instanceof FetchError) throw missing;
      result.notices.push(missing);
      continue;
    }
    if (found.files.length === 0) {
      const empty = describeMissing(planned, found.url, now, options, true);
      if (empty instanceof FetchError) throw empty;
      result.notices.push(empty);
      continue;
    }
    const members = found.files.map((file) => file.member ?? '');
    if (!members.some((member) => basename(member).toLowerCase() === planned.member.toLowerCase())) {
      // Still ingested: the parser recognises the report by its header, not the member name.
      result.notices.push(
        `${basename(planned.path)} holds ${members.join(', ')} where the CFTC used to put ${planned.member}`,
      );
    }
    result.ingests.push({ source: 'cftc', files: found.files, options: {} });
  }
  return result;
}

/** The CFTC's Commitments of Traders files (legacy, disaggregated, TFF, CIT). */
export const cftcFetcher: Fetcher<CftcFetchOptions> = {
  id: 'cftc',
  defaultBaseUrl: 'https://www.cftc.gov/',
  fetch: fetchCftcFiles,
};
