import { blsSource } from './bls.ts';
import { catalogSource } from './catalog.ts';
import { cftcSource } from './cftc.ts';
import { countriesSource } from './countries.ts';
import { ecbSource } from './ecb.ts';
import { fredSource } from './fred.ts';
import { iso4217Source } from './iso4217.ts';
import { m49Source } from './m49.ts';
import { micSource } from './mic.ts';
import { researchSource } from './research.ts';
import type { Source } from './source.ts';
import { tzSource } from './tz.ts';

/** Every source `mmds ingest` and `mmds fetch` know, by id. */
export const SOURCES: readonly Source[] = [
  ecbSource,
  cftcSource,
  blsSource,
  fredSource,
  m49Source,
  countriesSource,
  tzSource,
  iso4217Source,
  micSource,
  researchSource,
  catalogSource,
];

/** Finds a source by id, or null. */
export function findSource(id: string): Source | null {
  return SOURCES.find((source) => source.id === id) ?? null;
}
