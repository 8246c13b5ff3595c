import { BLS_VINTAGES } from './bls.ts';
import { FRED_SAMPLE } from './fred.ts';

/** One ingest step of the demo: a source id, its files relative to data/sample/, and optional flags. */
export interface PipelineStep {
  source: string;
  files: string[];
  /** RFC 3339 UTC knowledge time for every fact of the step (`--observed-at`). */
  observed_at?: string;
  /** Series key to file the values under (`--series`). */
  series?: string;
  /** Vintage date `YYYY-MM-DD` (`--vintage`). */
  vintage?: string;
  /** The values are invented sample values (`--sample`): stored as unverified, source_ref `sample:`. */
  sample?: boolean;
}

/** Returns the demo's ingest steps: catalog, reference lists, facts, research. */
export function makePipeline(files: { bls: readonly string[] }): PipelineStep[] {
  return [
    { source: 'catalog', files: ['../catalog/catalog.yaml'] },
    { source: 'm49', files: ['reference/unsd_m49_overview_en.csv'] },
    { source: 'countries', files: ['reference/country-codes.csv'] },
    { source: 'tz', files: ['reference/zone1970.tab'] },
    { source: 'iso4217', files: ['reference/iso4217_codes-all.csv'] },
    { source: 'mic', files: ['reference/ISO10383_MIC.csv'] },
    { source: 'ecb', files: ['ecb/eurofxref-hist.csv', 'ecb/eurofxref-daily.xml'], sample: true },
    {
      source: 'cftc',
      files: ['cftc/legacy_futures_only_sample.txt', 'cftc/tff_futures_only_sample.txt'],
      sample: true,
    },
    ...BLS_VINTAGES.map((vintage, index) => ({
      source: 'bls',
      files: [files.bls[index]!],
      observed_at: vintage.observedAt,
      sample: true,
    })),
    {
      source: 'fred',
      files: ['fred/northwind_FCI_sample.csv'],
      series: FRED_SAMPLE.series,
      vintage: FRED_SAMPLE.vintage,
      sample: true,
    },
    { source: 'research', files: ['research'] },
  ];
}
