import { quotedIdentifier } from '../db/duckdb.ts';

/** SQL that renders a TIMESTAMP column as RFC 3339 UTC (`2025-03-14T19:30:00Z`). */
export function rfc3339(column: string): string {
  return `strftime(${column}, '%Y-%m-%dT%H:%M:%SZ')`;
}

/** A column list for SELECT, quoted. */
export function columnList(columns: readonly string[]): string {
  return columns.map(quotedIdentifier).join(', ');
}
