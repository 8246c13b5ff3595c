/**
 * Rows per partition a publish aims at (MMDS_PARTITION_ROWS): apart from partitions.ts, so that
 * the settings table reads it without loading DuckDB (every command of the CLI loads the table).
 */
export const DEFAULT_PARTITION_ROWS = 250_000;
