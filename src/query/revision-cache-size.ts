/**
 * Default budget of the revision blocks of one snapshot (MMDS_REVISION_CACHE_MB): apart from
 * revision-cache.ts, so that the settings table reads it without loading DuckDB.
 */
export const DEFAULT_REVISION_CACHE_MB = 64;
