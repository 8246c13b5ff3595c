import type { DuckDBConnection } from '@duckdb/node-api';
import { execute, quotedIdentifier, quotedString } from '../db/duckdb.ts';
import { createCotMarketTable } from './cot-market-table.ts';
import { type PartitionRange, rangePredicate, relationOf } from './partitions.ts';
import { getTable } from './tables.ts';

/**
 * Tables computed from the facts when a snapshot is published, so that neither the server nor
 * a request scans every revision for a "latest" answer: the latest observation per series
 * (with its first period, period count and newest knowledge time), the latest COT report per
 * series, and the COT market list (src/store/cot-market-table.ts). Per-series tables are
 * computed one partition at a time (a series never spans two), so memory follows the partition
 * size, and an incremental publish recomputes only the partitions it rewrote.
 */
export const DERIVED_TABLES = ['series_latest', 'cot_latest', 'cot_markets'] as const;
export type DerivedTable = (typeof DERIVED_TABLES)[number];

/** The fact table each per-series derived table is computed from, and its SELECT over one relation. */
const PER_SERIES: Record<
  Exclude<DerivedTable, 'cot_markets'>,
  { from: string; select: (r: string) => string }
> = {
  series_latest: {
    from: 'observations',
    select: (relation) =>
      `SELECT o.series_key, o.period, o.value, o.observed_at, o.observed_at_method, o.revision_number, o.id,
              stats.first_period, stats.periods, stats.last_observed_at
         FROM ${relation} o
         JOIN (SELECT series_key, min(period) AS first_period, count(DISTINCT period) AS periods,
                      max(observed_at) AS last_observed_at
                 FROM ${relation} GROUP BY series_key) stats USING (series_key)
       QUALIFY row_number() OVER (PARTITION BY o.series_key ORDER BY o.period DESC, o.revision_number DESC) = 1`,
  },
  cot_latest: {
    from: 'cot_reports',
    select: (relation) =>
      `SELECT * FROM ${relation}
       QUALIFY row_number() OVER (PARTITION BY series_key ORDER BY period DESC, revision_number DESC) = 1`,
  },
};

/** What one derived table is made of in this publish. */
export interface DerivedInputs {
  /** The new snapshot's files of each fact table that were written (not linked) by this publish. */
  written: Record<string, string[]>;
  /** Every file of each fact table and of `markets` in the new snapshot. */
  all: Record<string, string[]>;
  /** The parent's derived file per table and the parent ranges rewritten, or null: compute all. */
  parent: {
    files: Partial<Record<DerivedTable, string>>;
    rewritten: Record<string, PartitionRange[]>;
  } | null;
}

function parquet(files: readonly string[]): string {
  return `read_parquet([${files.map(quotedString).join(', ')}])`;
}

/**
 * Writes each derived table as a Parquet file (`fileOf(name)`), into a scratch table first.
 * Per-series tables keep the parent's rows of every series outside the rewritten ranges.
 */
export async function writeDerivedTables(
  connection: DuckDBConnection,
  inputs: DerivedInputs,
  fileOf: (name: DerivedTable) => string,
): Promise<void> {
  for (const [name, definition] of Object.entries(PER_SERIES) as Array<
    [DerivedTable, (typeof PER_SERIES)['series_latest']]
  >) {
    const scratch = quotedIdentifier(`derived_${name}`);
    const table = getTable(definition.from);
    const all = inputs.all[definition.from] ?? [];
    const written = inputs.parent ? (inputs.written[definition.from] ?? []) : all;
    // The shape comes from the fact table's definition, so an empty table has its columns too.
    await execute(
      connection,
      `CREATE OR REPLACE TEMP TABLE ${scratch} AS ${definition.select(relationOf(table, []))} LIMIT 0`,
    );
    const parentFile = inputs.parent?.files[name];
    if (inputs.parent && parentFile) {
      const rewritten = inputs.parent.rewritten[definition.from] ?? [];
      const outside = rewritten.length > 0 ? `WHERE NOT (${rewritten.map(rangePredicate).join(' OR ')})` : '';
      await execute(
        connection,
        `INSERT INTO ${scratch} BY NAME SELECT * FROM read_parquet(${quotedString(parentFile)}) ${outside}`,
      );
    }
    for (const file of written) {
      await execute(connection, `INSERT INTO ${scratch} BY NAME ${definition.select(parquet([file]))}`);
    }
    await execute(
      connection,
      `COPY (SELECT * FROM ${scratch} ORDER BY series_key) TO ${quotedString(fileOf(name))} (FORMAT parquet, COMPRESSION zstd)`,
    );
    await execute(connection, `DROP TABLE ${scratch}`);
  }
  await writeCotMarkets(connection, inputs, fileOf('cot_markets'));
}

/** The COT market list, from every COT report and the catalog's market overrides. */
async function writeCotMarkets(
  connection: DuckDBConnection,
  inputs: DerivedInputs,
  file: string,
): Promise<void> {
  // createCotMarketTable reads relations named cot_reports and markets.
  for (const name of ['cot_reports', 'markets']) {
    const relation = relationOf(getTable(name), inputs.all[name] ?? []);
    await execute(connection, `CREATE OR REPLACE TEMP VIEW ${name} AS SELECT * FROM ${relation}`);
  }
  await execute(connection, 'DROP TABLE IF EXISTS cot_markets');
  try {
    await createCotMarketTable(connection);
    await execute(connection, `COPY cot_markets TO ${quotedString(file)} (FORMAT parquet, COMPRESSION zstd)`);
  } finally {
    await execute(connection, 'DROP TABLE IF EXISTS cot_markets');
    await execute(connection, 'DROP VIEW IF EXISTS cot_reports');
    await execute(connection, 'DROP VIEW IF EXISTS markets');
  }
}
