import { FetchError, MIRROR_SETTING } from './fetch-error.ts';
import { fetchPublisherFile, type PublisherFileOptions, type PublisherFileResult } from './publisher-file.ts';
import type { FetchedFile, Fetcher, FetchRequest, FetchResult } from './types.ts';
import { extractTarGzMembers } from './untar.ts';

/*
 * Where the reference lists come from (root, then path under it; MMDS_<SOURCE>_BASE_URL or mmds fetch --base-url replaces the root):
 *
 * - iso4217: SIX Financial Information, ISO 4217 maintenance agency.
 *   https://www.six-group.com/dam/download/financial-information/data-center/iso-currrency/lists/
 *   `list-one.xml` (current codes, Table A.1) and `list-three.xml` (historic codes, Table A.3).
 *   The triple "r" in `iso-currrency` is SIX's own spelling of the address.
 * - mic: SWIFT, ISO 10383 registration authority.
 *   https://www.iso20022.org/sites/default/files/ISO10383_MIC/ `ISO10383_MIC.csv`.
 * - tz: IANA. https://data.iana.org/time-zones/ `tzdata-latest.tar.gz`. IANA publishes the tables
 *   only inside the release tarball (the tz GitHub repository is the development tree, which may
 *   hold unreleased changes), so the tarball is fetched and `zone1970.tab` taken from it.
 * - countries: DataHub core dataset "country-codes" (ISO 3166 joined with M49, ISO 4217, ...).
 *   https://datahub.io/core/country-codes/ `r/country-codes.csv` (DataHub redirects to storage).
 * - m49: UN Statistics Division. The overview page (https://unstats.un.org/unsd/methodology/m49/
 *   overview/) builds its CSV in the browser, so the UN has no address for the file itself. The
 *   default is DataHub's verbatim copy of that English export, which its country-codes build
 *   keeps in its repository: https://raw.githubusercontent.com/datasets/country-codes/main/
 *   `tmp/UNSD-en.csv`. Point MMDS_M49_BASE_URL at a mirror that holds a fresher export under that path.
 */

async function fetchOne(request: FetchRequest, options: PublisherFileOptions): Promise<PublisherFileResult> {
  const found = await fetchPublisherFile(request, options);
  if (found.status === 'not_found') {
    throw new FetchError(
      found.url,
      `HTTP ${found.httpStatus}: the publisher has no such file; check the base URL (${MIRROR_SETTING}), the file may have moved`,
      { kind: 'not_found', status: found.httpStatus },
    );
  }
  return found;
}

/** Fetches files that make one ingest together: all of them when any changed, else none. */
async function fetchTogether(
  request: FetchRequest,
  source: string,
  files: PublisherFileOptions[],
  unpack: (file: FetchedFile) => FetchedFile[] = (file) => [file],
): Promise<FetchResult> {
  const found = [];
  for (const file of files) found.push(await fetchOne(request, file));
  if (found.every((entry) => entry.status === 'not_modified')) {
    return { ingests: [], unchanged: found.map((entry) => entry.url), notices: [] };
  }
  const collected: FetchedFile[] = [];
  for (const [index, entry] of found.entries()) {
    // A list the publisher did not change is still needed beside the one it did: read it afresh.
    const complete =
      entry.status === 'downloaded'
        ? entry
        : await fetchOne(request, { ...files[index]!, conditional: false });
    if (complete.status !== 'downloaded') throw new Error(`${complete.url}: expected a full download`);
    collected.push(...complete.files.flatMap(unpack));
  }
  return { ingests: [{ source, files: collected, options: {} }], unchanged: [], notices: [] };
}

function defineReferenceFetcher(
  id: string,
  defaultBaseUrl: string,
  run: (request: FetchRequest) => Promise<FetchResult>,
): Fetcher {
  return { id, defaultBaseUrl, fetch: (request) => run(request) };
}

/** ISO 4217 list one and list three, together in one ingest. */
export const iso4217Fetcher: Fetcher = defineReferenceFetcher(
  'iso4217',
  'https://www.six-group.com/dam/download/financial-information/data-center/iso-currrency/lists/',
  (request) =>
    fetchTogether(request, 'iso4217', [
      { path: 'list-one.xml', expect: 'xml' },
      { path: 'list-three.xml', expect: 'xml' },
    ]),
);

/** ISO 10383 market identifier codes (CSV). */
export const micFetcher: Fetcher = defineReferenceFetcher(
  'mic',
  'https://www.iso20022.org/sites/default/files/ISO10383_MIC/',
  (request) => fetchTogether(request, 'mic', [{ path: 'ISO10383_MIC.csv', expect: 'text' }]),
);

/** IANA `zone1970.tab`, taken from the latest tzdata release tarball. */
export const tzFetcher: Fetcher = defineReferenceFetcher(
  'tz',
  'https://data.iana.org/time-zones/',
  (request) =>
    fetchTogether(request, 'tz', [{ path: 'tzdata-latest.tar.gz', expect: 'gzip' }], (file) =>
      extractTarGzMembers(file, ['zone1970.tab'], request.workDir),
    ),
);

/** DataHub's country-codes CSV. */
export const countriesFetcher: Fetcher = defineReferenceFetcher(
  'countries',
  'https://datahub.io/core/country-codes/',
  (request) => fetchTogether(request, 'countries', [{ path: 'r/country-codes.csv', expect: 'text' }]),
);

/** The UN M49 overview CSV (English). */
export const m49Fetcher: Fetcher = defineReferenceFetcher(
  'm49',
  'https://raw.githubusercontent.com/datasets/country-codes/main/',
  (request) => fetchTogether(request, 'm49', [{ path: 'tmp/UNSD-en.csv', expect: 'text' }]),
);

/** Every reference-list fetcher by source id. */
export const REFERENCE_FETCHERS: Readonly<Record<string, Fetcher>> = Object.freeze({
  iso4217: iso4217Fetcher,
  m49: m49Fetcher,
  mic: micFetcher,
  tz: tzFetcher,
  countries: countriesFetcher,
});
