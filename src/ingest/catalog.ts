import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import {
  COT_REPORT_TYPES,
  FREQUENCIES,
  type MarketEntry,
  RIGHTS,
  type SectorEntry,
  type SeriesEntry,
  type SourceEntry,
} from '../model/records.ts';
import { InputError } from './input-error.ts';
import { createEmptyBatch, type Source } from './source.ts';
import {
  createYamlInputError,
  describeZodIssue,
  parseLocatedYaml,
  type YamlPath,
  type YamlProblem,
} from './yaml-document.ts';

/** CONTRACT section 5: slugs are lowercase `[a-z0-9-]`, at most 64 characters. */
export const SLUG_PATTERN = /^[a-z0-9-]{1,64}$/;

/** `<source>.<native id>`; the native id may itself contain dots (`bls.CES0000000001.change`). */
export const SERIES_KEY_PATTERN = /^[a-z0-9-]{1,64}\.[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The catalog's four tables, as the catalog file declares them. */
export interface Catalog {
  sources: SourceEntry[];
  series: SeriesEntry[];
  markets: MarketEntry[];
  sectors: SectorEntry[];
}

const text = z.string().trim().min(1, 'expected a non-empty string');
const slug = z
  .string()
  .regex(SLUG_PATTERN, 'expected a slug: lowercase a-z, 0-9 and "-", at most 64 characters');
const optionalText = text.nullable().default(null);

const sourceSchema = z.strictObject({
  id: slug,
  name: text,
  publisher: text,
  url: z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' }),
  licence: text,
  licence_url: z
    .url({ protocol: /^https?$/, error: 'expected an http(s) URL' })
    .nullable()
    .default(null),
  rights: z.enum(RIGHTS),
  attribution: text,
  cadence: z.enum(FREQUENCIES),
  stale_after_days: z.int().positive(),
  sample: z.boolean().default(false),
});

const seriesSchema = z.strictObject({
  key: z.string().regex(SERIES_KEY_PATTERN, 'expected a series key "<source>.<native id>"'),
  slug,
  name: text,
  source: slug,
  frequency: z.enum(FREQUENCIES),
  unit: text,
  country: z
    .string()
    .regex(/^[A-Z]{2}$/, 'expected an ISO 3166-1 alpha-2 code (two uppercase letters)')
    .nullable()
    .default(null),
  // Unquoted `150` is a YAML number; asking for a string keeps codes like `021` intact.
  region: z
    .string('expected a quoted string')
    .regex(/^(\d{3}|[a-z]+(-[a-z]+)*)$/, 'expected a three-digit UN M49 code or a kebab-case region name')
    .nullable()
    .default(null),
  currency: z
    .string()
    .regex(/^[A-Z]{3}$/, 'expected an ISO 4217 code (three uppercase letters)')
    .nullable()
    .default(null),
  sector: slug.nullable().default(null),
  seasonal_adjustment: optionalText,
  macro: z.boolean().default(false),
  description: optionalText,
  // The FRED/ALFRED id whose vintages are filed under this key (`mmds fetch fred`, `mmds update`).
  fred_id: z
    .string()
    .regex(/^[A-Z0-9_]+$/, 'expected a FRED series id (PAYEMS)')
    .nullable()
    .default(null),
});

/** CFTC contract market codes: six characters, consolidated markets ending in `+` (`13874+`). */
export const MARKET_CODE_PATTERN = /^[0-9A-Z]{5}[0-9A-Z+]$/;

// A market entry overrides what the CFTC files say of the market with that code; every field
// but the code may be left out, and then the value derived from the data stands.
const marketSchema = z.strictObject({
  // Unquoted `002602` is a YAML number (2602); the code must stay text with its zeros.
  code: z
    .string('expected a quoted string')
    .regex(MARKET_CODE_PATTERN, 'expected a six-character CFTC contract market code'),
  slug: slug.nullable().default(null),
  name: optionalText,
  exchange: optionalText,
  mic: z
    .string()
    .regex(/^[A-Z0-9]{4}$/, 'expected an ISO 10383 MIC (four characters)')
    .nullable()
    .default(null),
  sector: slug.nullable().default(null),
  report_types: z.array(z.enum(COT_REPORT_TYPES)).default([]),
});

const sectorSchema = z.strictObject({ id: slug, name: text, description: text });

const catalogSchema = z.strictObject({
  sources: z.array(sourceSchema),
  series: z.array(seriesSchema),
  markets: z.array(marketSchema),
  sectors: z.array(sectorSchema),
});

/** Returns a problem for the first item whose `field` repeats an earlier item's non-null value. */
function findDuplicate<T>(items: readonly T[], table: string, field: keyof T & string): YamlProblem | null {
  const seen = new Map<unknown, number>();
  for (const [index, item] of items.entries()) {
    const value = item[field];
    // A field left out (an override without a slug) repeats nothing.
    if (value === null) continue;
    const first = seen.get(value);
    if (first !== undefined) {
      return {
        path: [table, index, field],
        message: `duplicate ${field} "${String(value)}" (also ${table}[${first}])`,
      };
    }
    seen.set(value, index);
  }
  return null;
}

/** Returns a problem if `value` is not one of `known` (the ids of `table`). */
function checkReference(
  known: ReadonlySet<string>,
  value: string | null,
  path: YamlPath,
  what: string,
  table: string,
): YamlProblem | null {
  if (value === null || known.has(value)) return null;
  return { path, message: `unknown ${what} "${value}" (not in ${table})` };
}

/** Finds the first broken rule that spans entries: duplicates and dangling references. */
function findCrossReferenceProblem(catalog: Catalog): YamlProblem | null {
  const sourceIds = new Set(catalog.sources.map((s) => s.id));
  const sectorIds = new Set(catalog.sectors.map((s) => s.id));
  const problems: (YamlProblem | null)[] = [
    findDuplicate(catalog.sources, 'sources', 'id'),
    findDuplicate(catalog.sectors, 'sectors', 'id'),
    findDuplicate(catalog.series, 'series', 'key'),
    findDuplicate(catalog.series, 'series', 'slug'),
    findDuplicate(catalog.markets, 'markets', 'slug'),
    findDuplicate(catalog.markets, 'markets', 'code'),
  ];
  for (const [index, series] of catalog.series.entries()) {
    problems.push(
      checkReference(sourceIds, series.source, ['series', index, 'source'], 'source', 'sources'),
      // The key prefix need not be the distributing source (FRED's PAYEMS is filed as bls.*),
      // but it must still name a publisher the catalog knows.
      checkReference(
        sourceIds,
        series.key.split('.')[0] ?? '',
        ['series', index, 'key'],
        'key prefix',
        'sources',
      ),
      checkReference(sectorIds, series.sector, ['series', index, 'sector'], 'sector', 'sectors'),
    );
  }
  for (const [index, market] of catalog.markets.entries()) {
    problems.push(
      checkReference(sectorIds, market.sector, ['markets', index, 'sector'], 'sector', 'sectors'),
    );
    const types = market.report_types;
    const repeated = types.findIndex((type, i) => types.indexOf(type) !== i);
    if (repeated >= 0) {
      problems.push({ path: ['markets', index, 'report_types', repeated], message: 'duplicate report type' });
    }
  }
  return problems.find((problem) => problem !== null) ?? null;
}

/** Parses and validates catalog text; throws InputError naming the line and field path. */
export function parseCatalog(file: string, content: string): Catalog {
  const located = parseLocatedYaml(file, content);
  const result = catalogSchema.safeParse(located.value ?? {});
  if (!result.success) {
    const issue = result.error.issues[0];
    throw issue
      ? createYamlInputError(file, located, describeZodIssue(issue, located.value))
      : new InputError(file, null, 'invalid catalog');
  }
  const catalog: Catalog = result.data;
  const problem = findCrossReferenceProblem(catalog);
  if (problem) throw createYamlInputError(file, located, problem);
  return catalog;
}

/** Reads and validates the catalog file. */
export async function readCatalogFile(file: string): Promise<Catalog> {
  return parseCatalog(file, await readFile(file, 'utf8'));
}

/** The project's own catalog of sources, series, markets and sectors (one YAML file). */
export const catalogSource: Source = {
  id: 'catalog',
  description: 'The catalog of sources, series, markets and sectors (one YAML file)',
  async parse(files) {
    const [file, extra] = files;
    if (file === undefined) throw new InputError('catalog', null, 'expected one catalog file');
    if (extra !== undefined) throw new InputError(extra, null, 'the catalog is one file; got more than one');
    const catalog = await readCatalogFile(file);
    const batch = createEmptyBatch();
    batch.sources = catalog.sources;
    batch.series = catalog.series;
    batch.markets = catalog.markets;
    batch.sectors = catalog.sectors;
    batch.rows_read =
      catalog.sources.length + catalog.series.length + catalog.markets.length + catalog.sectors.length;
    return batch;
  },
};
