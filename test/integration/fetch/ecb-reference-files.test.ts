import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { createTar } from 'nanotar';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fetchEcbFiles } from '../../../src/fetch/ecb-files.ts';
import { FetchError } from '../../../src/fetch/fetch-error.ts';
import { openFetchState } from '../../../src/fetch/fetch-state.ts';
import {
  countriesFetcher,
  iso4217Fetcher,
  m49Fetcher,
  micFetcher,
  tzFetcher,
} from '../../../src/fetch/reference-files.ts';
import type { Fetcher } from '../../../src/fetch/types.ts';
import {
  type LoopbackPublisher,
  startLoopbackPublisher,
  zipFiles,
} from '../../helpers/loopback-publisher.ts';
import { SHARED_DATA } from '../../helpers/paths.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';
import { createTestRequest } from './fetch-request.ts';

const data = (path: string) => readFileSync(join(SHARED_DATA, path));
const ZONE1970 = data('tz/zone1970.tab');
const TZDATA = Buffer.from(
  gzipSync(
    createTar([
      { name: 'zone.tab', data: data('tz/zone.tab') },
      { name: 'zone1970.tab', data: ZONE1970 },
    ]),
  ),
);

describe('the ECB and reference-list fetchers against a loopback publisher', () => {
  let publisher: LoopbackPublisher;
  let temp: ReturnType<typeof createTempDir>;

  beforeAll(async () => {
    publisher = await startLoopbackPublisher({
      files: {
        'ecb/stats/eurofxref/eurofxref-hist.zip': zipFiles({
          'eurofxref-hist.csv': data('ecb/eurofxref-hist.csv'),
        }),
        'ecb/stats/eurofxref/eurofxref-daily.xml': data('ecb/eurofxref-daily.xml'),
        'six/list-one.xml': data('iso/iso4217_list_one_table_a1.xml'),
        'six/list-three.xml': data('iso/iso4217_list_three_table_a3_historic.xml'),
        'mic/ISO10383_MIC.csv': data('mic/ISO10383_MIC.csv'),
        'iana/tzdata-latest.tar.gz': TZDATA,
        'datahub/r/country-codes.csv': data('iso/country-codes.csv'),
        'm49/tmp/UNSD-en.csv': data('iso/unsd_m49_overview_en.csv'),
      },
    });
  });
  afterAll(() => publisher.close());
  beforeEach(() => {
    temp = createTempDir();
  });
  afterEach(() => temp.remove());

  function request(root: string, stateFile = join(temp.dir, 'fetch-state.json')) {
    return createTestRequest({
      baseUrl: publisher.url(root),
      workDir: join(temp.dir, 'work'),
      state: openFetchState(stateFile),
    });
  }

  it('fetches the ECB history zip first, the daily XML afterwards', async () => {
    const history = await fetchEcbFiles(request('ecb/'), { hasHistory: false });
    const [csv] = history.ingests[0]!.files;
    expect(history.ingests[0]?.source).toBe('ecb');
    expect(csv?.member).toBe('eurofxref-hist.csv');
    expect(readFileSync(csv!.path)).toEqual(data('ecb/eurofxref-hist.csv'));
    const daily = await fetchEcbFiles(request('ecb'), { hasHistory: true });
    expect(daily.ingests[0]?.files[0]?.url).toBe(publisher.url('ecb/stats/eurofxref/eurofxref-daily.xml'));
    expect(daily.ingests[0]?.files[0]?.member).toBeNull();
  });

  it('refuses an ECB HTML maintenance page', async () => {
    publisher.setFault('ecb/stats/eurofxref/eurofxref-daily.xml', 'html');
    try {
      await expect(fetchEcbFiles(request('ecb/'), { hasHistory: true })).rejects.toThrow(FetchError);
    } finally {
      publisher.setFault('ecb/stats/eurofxref/eurofxref-daily.xml', null);
    }
  });

  const cases: Array<[Fetcher, string, string, Buffer[]]> = [
    [
      iso4217Fetcher,
      'six/',
      'iso4217',
      [data('iso/iso4217_list_one_table_a1.xml'), data('iso/iso4217_list_three_table_a3_historic.xml')],
    ],
    [micFetcher, 'mic/', 'mic', [data('mic/ISO10383_MIC.csv')]],
    [tzFetcher, 'iana/', 'tz', [ZONE1970]],
    [countriesFetcher, 'datahub/', 'countries', [data('iso/country-codes.csv')]],
    [m49Fetcher, 'm49/', 'm49', [data('iso/unsd_m49_overview_en.csv')]],
  ];

  it.each(cases)(
    '%s fetches its files into one ingest, then reports them unchanged',
    async (fetcher, root, source, bytes) => {
      expect(fetcher.id).toBe(source);
      expect(fetcher.defaultBaseUrl).toMatch(/^https:\/\//);
      const stateFile = join(temp.dir, 'fetch-state.json');
      const first = await fetcher.fetch(request(root, stateFile), {});
      expect(first.ingests).toHaveLength(1);
      expect(first.ingests[0]?.source).toBe(source);
      expect(first.ingests[0]?.files.map((file) => readFileSync(file.path))).toEqual(bytes);
      openFetchState(stateFile).commit(first.ingests[0]!.files);
      const second = await fetcher.fetch(request(root, stateFile), {});
      expect(second.ingests).toEqual([]);
      expect(second.unchanged).toHaveLength(source === 'iso4217' ? 2 : 1);
    },
  );

  it('downloads both ISO 4217 lists again when only one of them changed', async () => {
    const stateFile = join(temp.dir, 'fetch-state.json');
    const first = await iso4217Fetcher.fetch(request('six/', stateFile), {});
    // Only list one is remembered: list three looks new, so list one must be re-read beside it.
    openFetchState(stateFile).commit(
      first.ingests[0]!.files.filter((file) => file.url.endsWith('list-one.xml')),
    );
    const second = await iso4217Fetcher.fetch(request('six/', stateFile), {});
    expect(second.ingests[0]?.files.map((file) => file.url.split('/').pop())).toEqual([
      'list-one.xml',
      'list-three.xml',
    ]);
  });
});
