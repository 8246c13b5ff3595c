import { mkdirSync, type Stats, statSync } from 'node:fs';
import { ConfigError } from '../lib/config-error.ts';

/**
 * What a command does with the data directory (MMDS_DATA_DIR): `creates` makes it when it does not
 * exist and says so on stderr; `reads` refuses to run without it (exit 78), so that a misspelt
 * path fails loudly instead of verifying or serving an empty store; `none` does not touch it.
 */
export type DataDirUse = 'creates' | 'reads' | 'none';

/**
 * Every command that runs an action, by its full name. The commands that write the store create
 * the directory; the ones that read the store, snapshots or keys need it to exist.
 */
export const DATA_DIR_USE: Readonly<Record<string, DataDirUse>> = Object.freeze({
  ingest: 'creates',
  'ingest-plan': 'creates',
  fetch: 'creates',
  update: 'creates',
  publish: 'reads',
  verify: 'reads',
  'store drop-unpublished': 'reads',
  build: 'reads',
  serve: 'reads',
  mcp: 'reads',
  'keys issue': 'creates',
  'keys list': 'reads',
  'keys rotate': 'reads',
  'keys revoke': 'reads',
  'hooks add': 'reads',
  'hooks list': 'reads',
  'hooks rotate': 'reads',
  'hooks pause': 'reads',
  'hooks resume': 'reads',
  'hooks remove': 'reads',
  'hooks replay': 'reads',
  deliver: 'reads',
});

/** Commands that keep their state in the data directory only with MMDS_STORAGE=file. */
const STORAGE_COMMANDS = /^(keys|hooks) /;

/** How a command uses the data directory under a storage setting (`none` for unknown names). */
export function dataDirUse(command: string, storage: string): DataDirUse {
  if (STORAGE_COMMANDS.test(command) && storage !== 'file') return 'none';
  return DATA_DIR_USE[command] ?? 'none';
}

/**
 * Makes sure the data directory is there for a command: creates it for the creating commands
 * (calling `created` with its absolute path), refuses with a ConfigError for the reading ones.
 */
export function prepareDataDir(use: DataDirUse, dataDir: string, created: (path: string) => void): void {
  if (use === 'none') return;
  let stats: Stats | undefined;
  try {
    stats = statSync(dataDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (stats !== undefined) {
    if (!stats.isDirectory())
      throw new ConfigError(
        `MMDS_DATA_DIR ${dataDir} is not a directory; point MMDS_DATA_DIR at a directory`,
      );
    return;
  }
  if (use === 'reads')
    throw new ConfigError(
      `data directory ${dataDir} does not exist; check MMDS_DATA_DIR (default ./data), or create it with mmds ingest-plan, ingest, fetch or update`,
    );
  mkdirSync(dataDir, { recursive: true });
  created(dataDir);
}
