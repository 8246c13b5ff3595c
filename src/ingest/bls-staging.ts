import type { DuckDBConnection } from '@duckdb/node-api';
import { execute } from '../db/duckdb.ts';

/**
 * The scratch tables of one parse: `staged` holds the values of the file being read (with their
 * problems), `rows` the good values of all files, `known` the knowledge times per distinct
 * (series id, period), computed in JavaScript from the release calendar.
 */
export interface BlsTables {
  connection: DuckDBConnection;
  staged: string;
  rows: string;
  known: string;
  observations: string;
}

/** Columns of the staged values (`problem`: the value's own error, `problem_line` its line). */
export const STAGED_COLUMNS = `ordinal BIGINT, line INTEGER, skipped BOOLEAN, problem VARCHAR, problem_line INTEGER,
  series_key VARCHAR, knowledge_id VARCHAR, period VARCHAR, value DOUBLE,
  footnotes STRUCT(code VARCHAR, text VARCHAR)[], source_ref VARCHAR, locator VARCHAR,
  given_at TIMESTAMP, given_method VARCHAR, verification_status VARCHAR, confidence DOUBLE`;

/** A staged value built in JavaScript (the vintage JSON and the CPI CSV). */
export interface StagedValue {
  ordinal: number;
  line: number | null;
  skipped: boolean;
  problem: string | null;
  problem_line: number | null;
  series_key: string | null;
  knowledge_id: string | null;
  period: string | null;
  value: number | null;
  source_ref: string | null;
  locator: string | null;
  given_at: string | null;
  given_method: string | null;
  verification_status: string;
  confidence: number;
}

export async function stageValues(tables: BlsTables, values: readonly StagedValue[]): Promise<void> {
  await execute(
    tables.connection,
    `INSERT INTO ${tables.staged} BY NAME
       SELECT * REPLACE (given_at::TIMESTAMP AS given_at), NULL AS footnotes
         FROM (SELECT unnest(from_json($values::JSON, '[{"ordinal":"BIGINT","line":"INTEGER","skipped":"BOOLEAN",
           "problem":"VARCHAR","problem_line":"INTEGER","series_key":"VARCHAR","knowledge_id":"VARCHAR",
           "period":"VARCHAR","value":"DOUBLE","source_ref":"VARCHAR","locator":"VARCHAR","given_at":"VARCHAR",
           "given_method":"VARCHAR","verification_status":"VARCHAR","confidence":"DOUBLE"}]'), recursive := true))`,
    { values: JSON.stringify(values) },
  );
}
