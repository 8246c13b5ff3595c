/**
 * The stored tables and their Parquet column types: the one place that says what a batch and a
 * snapshot hold. Fact tables keep every revision; reference tables keep the latest row per key.
 */

const PROVENANCE_COLUMNS = {
  source_ref: 'VARCHAR',
  observed_at: 'TIMESTAMP',
  observed_at_method: 'VARCHAR',
  collector_version: 'VARCHAR',
  verification_status: 'VARCHAR',
  confidence: 'DOUBLE',
  data_class: 'VARCHAR',
  revision_number: 'INTEGER',
  supersedes_id: 'VARCHAR',
  batch_id: 'VARCHAR',
} as const;

const COT_POSITION_TYPE =
  'STRUCT(category VARCHAR, long INTEGER, short INTEGER, spread INTEGER, change_long INTEGER, ' +
  'change_short INTEGER, change_spread INTEGER, pct_oi_long DOUBLE, pct_oi_short DOUBLE, pct_oi_spread DOUBLE, ' +
  'traders_long INTEGER, traders_short INTEGER, traders_spread INTEGER)[]';

const CONCENTRATION_COLUMNS = {
  conc_gross_le4_long: 'DOUBLE',
  conc_gross_le4_short: 'DOUBLE',
  conc_gross_le8_long: 'DOUBLE',
  conc_gross_le8_short: 'DOUBLE',
} as const;

const NET_CONCENTRATION_COLUMNS = {
  conc_net_le4_long: 'DOUBLE',
  conc_net_le4_short: 'DOUBLE',
  conc_net_le8_long: 'DOUBLE',
  conc_net_le8_short: 'DOUBLE',
} as const;

const structOf = (columns: Record<string, string>) =>
  Object.entries(columns)
    .map(([name, type]) => `${name} ${type}`)
    .join(', ');

const COT_CROP_YEAR_TYPE =
  `STRUCT(crop VARCHAR, open_interest INTEGER, traders_total INTEGER, ${structOf(CONCENTRATION_COLUMNS)}, ` +
  `${structOf(NET_CONCENTRATION_COLUMNS)}, positions ${COT_POSITION_TYPE})[]`;

/** A table of the store: column types, its key, and whether it keeps revisions. */
export interface TableDefinition {
  name: string;
  kind: 'fact' | 'reference';
  /** Column name to DuckDB type, in output order. */
  columns: Readonly<Record<string, string>>;
  /** Columns that identify a row (facts: series and period; revisions come on top). */
  key: readonly string[];
  /** Columns a fact's revisions are compared on, hashed into its fingerprint. */
  fingerprint?: readonly string[];
  /** The snapshot schema (manifest.ts SCHEMA_VERSION) that added the table; older ones lack it. */
  since?: number;
}

/** Every table, in publish order. */
export const TABLES: readonly TableDefinition[] = [
  {
    name: 'observations',
    kind: 'fact',
    columns: {
      id: 'VARCHAR',
      series_key: 'VARCHAR',
      period: 'VARCHAR',
      value: 'DOUBLE',
      footnotes: 'STRUCT(code VARCHAR, text VARCHAR)[]',
      ...PROVENANCE_COLUMNS,
    },
    key: ['series_key', 'period'],
    fingerprint: ['value'],
  },
  {
    name: 'cot_reports',
    kind: 'fact',
    columns: {
      id: 'VARCHAR',
      series_key: 'VARCHAR',
      period: 'VARCHAR',
      report_type: 'VARCHAR',
      scope: 'VARCHAR',
      market_code: 'VARCHAR',
      exchange_code: 'VARCHAR',
      region_code: 'VARCHAR',
      commodity_code: 'VARCHAR',
      subgroup_code: 'VARCHAR',
      market_name: 'VARCHAR',
      contract_units: 'VARCHAR',
      open_interest: 'INTEGER',
      change_open_interest: 'INTEGER',
      traders_total: 'INTEGER',
      ...CONCENTRATION_COLUMNS,
      positions: COT_POSITION_TYPE,
      content_hash: 'VARCHAR',
      ...PROVENANCE_COLUMNS,
    },
    key: ['series_key', 'period'],
    fingerprint: ['content_hash'],
  },
  {
    // The columns of a COT report stored beside it, with their own content hash and revisions
    // (docs/data-model.md, "COT report columns"): cot_reports' content hash stays what it was.
    name: 'cot_report_columns',
    kind: 'fact',
    columns: {
      id: 'VARCHAR',
      series_key: 'VARCHAR',
      period: 'VARCHAR',
      ...NET_CONCENTRATION_COLUMNS,
      crop_years: COT_CROP_YEAR_TYPE,
      content_hash: 'VARCHAR',
      ...PROVENANCE_COLUMNS,
    },
    key: ['series_key', 'period'],
    fingerprint: ['content_hash'],
    since: 4,
  },
  reference('regions', ['code'], {
    code: 'VARCHAR',
    name: 'VARCHAR',
    slug: 'VARCHAR',
    level: 'VARCHAR',
    parent_code: 'VARCHAR',
  }),
  reference('countries', ['iso2'], {
    iso2: 'VARCHAR',
    iso3: 'VARCHAR',
    numeric: 'VARCHAR',
    name: 'VARCHAR',
    region_code: 'VARCHAR',
    region_name: 'VARCHAR',
    sub_region_code: 'VARCHAR',
    sub_region_name: 'VARCHAR',
    intermediate_region_code: 'VARCHAR',
    intermediate_region_name: 'VARCHAR',
    ldc: 'BOOLEAN',
    lldc: 'BOOLEAN',
    sids: 'BOOLEAN',
  }),
  reference('country_currencies', ['iso2'], { iso2: 'VARCHAR', currencies: 'VARCHAR[]' }),
  reference('time_zones', ['zone'], {
    zone: 'VARCHAR',
    countries: 'VARCHAR[]',
    coordinates: 'VARCHAR',
    comment: 'VARCHAR',
  }),
  reference('currencies', ['code'], {
    code: 'VARCHAR',
    numeric: 'VARCHAR',
    name: 'VARCHAR',
    minor_units: 'INTEGER',
    is_fund: 'BOOLEAN',
    entities: 'VARCHAR[]',
    withdrawn: 'VARCHAR',
    withdrawals: 'STRUCT(entity VARCHAR, name VARCHAR, withdrawn VARCHAR)[]',
  }),
  reference('venues', ['mic'], {
    mic: 'VARCHAR',
    operating_mic: 'VARCHAR',
    kind: 'VARCHAR',
    name: 'VARCHAR',
    legal_name: 'VARCHAR',
    lei: 'VARCHAR',
    category: 'VARCHAR',
    acronym: 'VARCHAR',
    country: 'VARCHAR',
    city: 'VARCHAR',
    website: 'VARCHAR',
    status: 'VARCHAR',
    created: 'VARCHAR',
    updated: 'VARCHAR',
    expiry: 'VARCHAR',
    comments: 'VARCHAR',
  }),
  reference('research', ['id'], {
    id: 'VARCHAR',
    slug: 'VARCHAR',
    title: 'VARCHAR',
    published_at: 'TIMESTAMP',
    authors: 'VARCHAR[]',
    tags: 'VARCHAR[]',
    summary: 'VARCHAR',
    series: 'VARCHAR[]',
    body_markdown: 'VARCHAR',
    source_ref: 'VARCHAR',
  }),
  reference('sources', ['id'], {
    id: 'VARCHAR',
    name: 'VARCHAR',
    publisher: 'VARCHAR',
    url: 'VARCHAR',
    licence: 'VARCHAR',
    licence_url: 'VARCHAR',
    rights: 'VARCHAR',
    attribution: 'VARCHAR',
    cadence: 'VARCHAR',
    stale_after_days: 'INTEGER',
    sample: 'BOOLEAN',
  }),
  reference('series', ['key'], {
    key: 'VARCHAR',
    slug: 'VARCHAR',
    name: 'VARCHAR',
    source: 'VARCHAR',
    frequency: 'VARCHAR',
    unit: 'VARCHAR',
    country: 'VARCHAR',
    region: 'VARCHAR',
    currency: 'VARCHAR',
    sector: 'VARCHAR',
    seasonal_adjustment: 'VARCHAR',
    macro: 'BOOLEAN',
    description: 'VARCHAR',
    fred_id: 'VARCHAR',
  }),
  reference('markets', ['code'], {
    slug: 'VARCHAR',
    code: 'VARCHAR',
    name: 'VARCHAR',
    exchange: 'VARCHAR',
    mic: 'VARCHAR',
    sector: 'VARCHAR',
    report_types: 'VARCHAR[]',
  }),
  reference('sectors', ['id'], { id: 'VARCHAR', name: 'VARCHAR', description: 'VARCHAR' }),
];

function reference(name: string, key: readonly string[], columns: Record<string, string>): TableDefinition {
  return { name, kind: 'reference', key, columns: { ...columns, batch_id: 'VARCHAR', row_hash: 'VARCHAR' } };
}

/** Finds a table definition by name. */
export function getTable(name: string): TableDefinition {
  const table = TABLES.find((t) => t.name === name);
  if (!table) throw new Error(`unknown table ${name}`);
  return table;
}

/** The DuckDB struct type that read_json needs for the table's columns. */
export function describeColumns(table: TableDefinition): string {
  return `{${Object.entries(table.columns)
    .map(([name, type]) => `'${name}': '${type}'`)
    .join(', ')}}`;
}
