import { join } from 'node:path';
import { execute, openDuckDb, quotedIdentifier, quotedString, readRows } from '../db/duckdb.ts';
import { DERIVED_TABLES } from '../store/derived-tables.ts';
import { type StoreLayout, snapshotDir } from '../store/layout.ts';
import { readManifest, SCHEMA_VERSION } from '../store/manifest.ts';
import { relationOf } from '../store/partitions.ts';
import { TABLES } from '../store/tables.ts';
import { createSeriesRights } from './derived-tables.ts';
import { createPool } from './snapshot-pool.ts';
import type { FactTable, OpenSnapshotOptions, PartitionIndex, SnapshotDb } from './snapshot-types.ts';

export {
  type FactTable,
  type OpenSnapshotOptions,
  QueryTimeoutError,
  type SnapshotDb,
} from './snapshot-types.ts';

/**
 * Opens a snapshot: one DuckDB instance whose views read the snapshot's Parquet files; file
 * access is then limited to exactly those files and the configuration is locked, so no query
 * can read, write or attach anything else.
 */
export async function openSnapshotDb(
  layout: StoreLayout,
  snapshotId: string,
  options: OpenSnapshotOptions = {},
): Promise<SnapshotDb> {
  const manifest = readManifest(layout, snapshotId);
  const dir = snapshotDir(layout, snapshotId);
  const instance = await openDuckDb({
    threads: options.threads ?? 2,
    memoryLimit: options.memoryLimit ?? '1GB',
  });
  const setup = await instance.connect();
  const files: string[] = [];
  const partitions = new Map<FactTable, PartitionIndex>();
  try {
    if (manifest.schema_version < SCHEMA_VERSION || !manifest.derived) {
      throw new Error(
        `snapshot ${snapshotId} was written by an older mmds (schema ${manifest.schema_version}); run mmds publish`,
      );
    }
    for (const table of TABLES) {
      const entry = manifest.tables[table.name];
      if (!entry) throw new Error(`snapshot ${snapshotId} has no ${table.name} table`);
      const tableFiles = entry.files.map((file) => join(dir, file.file));
      files.push(...tableFiles);
      // Reference tables are small and joined by most requests: held in memory. Fact tables
      // (millions of revisions, partitioned) stay views over their Parquet files, one over all
      // and one per partition for lookups of one series.
      const kind = table.kind === 'reference' ? 'TABLE' : 'VIEW';
      await execute(
        setup,
        `CREATE ${kind} ${quotedIdentifier(table.name)} AS SELECT * FROM ${relationOf(table, tableFiles)}`,
      );
      if (table.kind !== 'fact') continue;
      const index: PartitionIndex = new Map();
      for (const [n, file] of entry.files.entries()) {
        if (file.source === undefined) continue;
        const view = quotedIdentifier(`${table.name}__p${n}`);
        await execute(
          setup,
          `CREATE VIEW ${view} AS SELECT * FROM read_parquet(${quotedString(join(dir, file.file))})`,
        );
        const views = index.get(file.source) ?? [];
        views.push({ lower: file.lower ?? null, upper: file.upper ?? null, view });
        index.set(file.source, views);
      }
      partitions.set(table.name as FactTable, index);
    }
    // Computed at publish: one row per series or market, loaded into memory.
    for (const name of DERIVED_TABLES) {
      const entry = manifest.derived[name];
      if (!entry) throw new Error(`snapshot ${snapshotId} has no derived table ${name}`);
      const file = join(dir, entry.file);
      files.push(file);
      await execute(
        setup,
        `CREATE TABLE ${quotedIdentifier(name)} AS SELECT * FROM read_parquet(${quotedString(file)})`,
      );
    }
    // Parquet footers are parsed once per file, not once per query (a ~1 ms per file and query).
    await execute(setup, 'SET parquet_metadata_cache = true');
    await createSeriesRights(setup);
    await execute(setup, `SET allowed_paths = [${files.map(quotedString).join(', ')}]`);
    await execute(setup, 'SET enable_external_access = false');
    await execute(setup, 'SET lock_configuration = true');
    // Touch every file once so that a damaged snapshot is refused here, not in a request.
    if (options.touchFiles ?? true)
      for (const table of TABLES)
        await readRows(setup, `SELECT count(*) AS n FROM ${quotedIdentifier(table.name)}`);
  } catch (error) {
    setup.closeSync();
    instance.closeSync();
    throw error;
  }
  setup.closeSync();
  return createPool(instance, snapshotId, manifest, options, partitions, layout);
}
