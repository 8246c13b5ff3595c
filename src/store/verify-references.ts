/**
 * The checks of a snapshot's reference data for verify-snapshot.ts: every series' source has
 * known rights, and the reference lists the facts point into hold what they name.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { quotedString, readRows } from '../db/duckdb.ts';
import { RIGHTS } from '../model/records.ts';
import type { Problem } from './problem.ts';

/** Every series' source is in the catalog with rights the service knows. */
export async function checkRights(connection: DuckDBConnection): Promise<Problem[]> {
  const rights = `[${RIGHTS.map(quotedString).join(', ')}]`;
  const rows = await readRows<{ series_key: string; source: string | null; rights: string | null }>(
    connection,
    `WITH keys AS (SELECT series_key FROM v_fact_keys)
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

/** Each catalog code resolves in its reference list (a warning when the list was never ingested). */
export async function checkReferences(connection: DuckDBConnection): Promise<Problem[]> {
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
