import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { execute, quotedIdentifier, quotedString, readRows } from '../db/duckdb.ts';
import { RIGHTS } from '../model/records.ts';
import type { SnapshotManifest } from './manifest.ts';
import { TABLES } from './tables.ts';
import { type ChainRow, validateChains } from './validate-chains.ts';
import { hashFile } from './write-parquet.ts';

/** One finding of a verification; errors block a publish and fail `mmds verify`. */
export interface Problem {
  severity: 'error' | 'warning';
  check: 'checksum' | 'chain' | 'rights' | 'reference';
  message: string;
}

/** Checks that every file of the manifest is there with its recorded size, checksum and rows. */
export async function verifySnapshotFiles(dir: string, manifest: SnapshotManifest): Promise<Problem[]> {
  const problems: Problem[] = [];
  const error = (message: string) => problems.push({ severity: 'error', check: 'checksum', message });
  for (const table of TABLES) {
    const entry = manifest.tables[table.name];
    if (!entry) {
      error(`${manifest.id}: manifest lists no file for table ${table.name}`);
      continue;
    }
    const file = join(dir, entry.file);
    if (!existsSync(file)) error(`${manifest.id}/${entry.file}: missing`);
    else if (statSync(file).size !== entry.bytes)
      error(`${manifest.id}/${entry.file}: size differs from the manifest`);
    else if ((await hashFile(file)) !== entry.sha256)
      error(`${manifest.id}/${entry.file}: SHA-256 differs from the manifest`);
  }
  return problems;
}

/**
 * Opens the snapshot's tables as views on `connection` and checks their content: revision
 * chains, rights of every series, and that catalog references resolve in the reference lists.
 * Call it only after verifySnapshotFiles found no problem.
 */
export async function verifySnapshotContent(
  connection: DuckDBConnection,
  dir: string,
  manifest: SnapshotManifest,
): Promise<Problem[]> {
  for (const table of TABLES) {
    const entry = manifest.tables[table.name]!;
    await execute(
      connection,
      `CREATE OR REPLACE TEMP VIEW ${quotedIdentifier(`v_${table.name}`)} AS SELECT * FROM read_parquet(${quotedString(join(dir, entry.file))})`,
    );
  }
  return [
    ...(await checkChains(connection)),
    ...(await checkRights(connection)),
    ...(await checkReferences(connection)),
  ];
}

async function checkChains(connection: DuckDBConnection): Promise<Problem[]> {
  const problems: Problem[] = [];
  for (const view of ['v_observations', 'v_cot_reports']) {
    const rows = await readRows<ChainRow>(
      connection,
      `SELECT id, series_key, period, revision_number, supersedes_id,
              strftime(observed_at, '%Y-%m-%dT%H:%M:%SZ') AS observed_at FROM ${view}`,
    );
    for (const problem of validateChains(rows)) {
      problems.push({
        severity: 'error',
        check: 'chain',
        message: `${problem.series_key} ${problem.period}: ${problem.message}`,
      });
    }
  }
  return [...problems, ...(await checkReversions(connection))];
}

const REVERSIONS_LISTED = 20;

/**
 * A chain whose newest revision returns to the value of an older one, stamped later, is what an
 * old file ingested late with the wrong knowledge time looks like (it can also be a real revision
 * that went back): a warning for the operator to look at, naming how the stamp was set.
 */
async function checkReversions(connection: DuckDBConnection): Promise<Problem[]> {
  const rows = await readRows<{
    series_key: string;
    period: string;
    newest: number;
    older: number;
    method: string;
  }>(
    connection,
    `WITH chain AS (
       SELECT series_key, period, value, revision_number, observed_at_method,
              max(revision_number) OVER (PARTITION BY series_key, period) AS newest
         FROM v_observations)
     SELECT n.series_key, n.period, n.revision_number AS newest,
            max(o.revision_number) AS older, coalesce(n.observed_at_method, 'unknown') AS method
       FROM chain n JOIN chain o ON o.series_key = n.series_key AND o.period = n.period
      WHERE n.revision_number = n.newest AND o.revision_number < n.revision_number - 1 AND o.value = n.value
      GROUP BY ALL ORDER BY n.series_key, n.period`,
  );
  const problems: Problem[] = rows.slice(0, REVERSIONS_LISTED).map((row) => ({
    severity: 'warning',
    check: 'chain',
    message:
      `${row.series_key} ${row.period}: the newest revision (${row.newest}, stamped by ${row.method}) ` +
      `returns to the value of revision ${row.older}; if an older file was ingested late, its knowledge time is wrong`,
  }));
  if (rows.length > REVERSIONS_LISTED) {
    problems.push({
      severity: 'warning',
      check: 'chain',
      message: `${rows.length - REVERSIONS_LISTED} more chains return to an older value`,
    });
  }
  return problems;
}

async function checkRights(connection: DuckDBConnection): Promise<Problem[]> {
  const rights = `[${RIGHTS.map(quotedString).join(', ')}]`;
  const rows = await readRows<{ series_key: string; source: string | null; rights: string | null }>(
    connection,
    `WITH keys AS (SELECT DISTINCT series_key FROM v_observations UNION SELECT DISTINCT series_key FROM v_cot_reports)
     SELECT k.series_key, coalesce(s.source, split_part(k.series_key, '.', 1)) AS source, src.rights
       FROM keys k
       LEFT JOIN v_series s ON s.key = k.series_key
       LEFT JOIN v_sources src ON src.id = coalesce(s.source, split_part(k.series_key, '.', 1))
      WHERE src.rights IS NULL OR NOT list_contains(${rights}, src.rights)
      ORDER BY k.series_key`,
  );
  const catalogRows = await readRows<{ key: string; source: string }>(
    connection,
    'SELECT s.key, s.source FROM v_series s LEFT JOIN v_sources src ON src.id = s.source WHERE src.id IS NULL',
  );
  return [
    ...rows.map((row) => ({
      severity: 'error' as const,
      check: 'rights' as const,
      message: `series ${row.series_key}: source ${row.source} has no rights class in the catalog`,
    })),
    ...catalogRows.map((row) => ({
      severity: 'error' as const,
      check: 'rights' as const,
      message: `catalog series ${row.key}: unknown source ${row.source}`,
    })),
  ];
}

/** Catalog references and the reference list each must resolve in. */
const REFERENCE_CHECKS = [
  {
    what: 'country',
    list: 'v_countries',
    sql: `SELECT 'series ' || key AS owner, country AS code FROM v_series
           WHERE country IS NOT NULL AND country NOT IN (SELECT iso2 FROM v_countries)`,
  },
  {
    what: 'region',
    list: 'v_regions',
    sql: `SELECT 'series ' || key AS owner, region AS code FROM v_series
           WHERE region IS NOT NULL AND region NOT IN (SELECT code FROM v_regions UNION SELECT slug FROM v_regions)`,
  },
  {
    what: 'currency',
    list: 'v_currencies',
    sql: `SELECT 'series ' || key AS owner, currency AS code FROM v_series
           WHERE currency IS NOT NULL AND currency NOT IN (SELECT code FROM v_currencies)`,
  },
  {
    what: 'venue',
    list: 'v_venues',
    sql: `SELECT 'market ' || slug AS owner, mic AS code FROM v_markets
           WHERE mic IS NOT NULL AND mic NOT IN (SELECT mic FROM v_venues)`,
  },
] as const;

async function checkReferences(connection: DuckDBConnection): Promise<Problem[]> {
  const problems: Problem[] = [];
  for (const check of REFERENCE_CHECKS) {
    const [size] = await readRows<{ n: number }>(
      connection,
      `SELECT count(*)::INTEGER AS n FROM ${check.list}`,
    );
    if (Number(size?.n ?? 0) === 0) {
      problems.push({
        severity: 'warning',
        check: 'reference',
        message: `no ${check.what} list ingested: ${check.what} codes of the catalog are not checked`,
      });
      continue;
    }
    for (const row of await readRows<{ owner: string; code: string }>(connection, check.sql)) {
      problems.push({
        severity: 'error',
        check: 'reference',
        message: `${row.owner}: unknown ${check.what} ${row.code}`,
      });
    }
  }
  return problems;
}
