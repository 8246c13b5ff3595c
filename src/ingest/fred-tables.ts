/**
 * The scratch tables and knowledge times one FRED/ALFRED parse (fred.ts) shares with its format
 * readers (fred-csv.ts, fred-alfred-json.ts).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { KnowledgeTime } from '../model/records.ts';

/**
 * The scratch tables of one parse, named apart from any other parse on the connection. Every
 * value read goes into `values`: one row per data row (missing values too, value NULL), with
 *   ordinal (input order: format readers in turn, then file order), file_group (one per CSV
 *   file, one for all JSON files: the dates whose frequency is inferred together), file (path),
 *   line (NULL in JSON), series_key, date (`YYYY-MM-DD`), knowledge (key into the knowledge
 *   table), value, source_ref, hint (what to say when two values clash).
 */
export interface FredTables {
  connection: DuckDBConnection;
  prefix: string;
  values: string;
}

/** The knowledge times of a parse, by the key the values table refers to them with. */
export type FredKnowledge = Map<string, KnowledgeTime>;
