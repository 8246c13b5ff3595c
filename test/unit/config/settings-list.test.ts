import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MMDS_SETTINGS } from '../../../src/config/load-config.ts';
import { REPO_ROOT } from '../../helpers/paths.ts';

/**
 * MMDS_SETTINGS is what mmds warns against ("… is not a setting of mmds"): a variable the code
 * reads but the list lacks would be read and warned about at once (MMDS_SNAPSHOT_STORE was).
 */
describe('the list of settings', () => {
  const named = (file: string) =>
    new Set(
      [...readFileSync(join(REPO_ROOT, file), 'utf8').matchAll(/\bMMDS_[A-Z0-9_]+\b/g)].map((m) => m[0]),
    );

  it('holds every MMDS_* variable loadConfig reads and mmds --help lists', () => {
    const config = readFileSync(join(REPO_ROOT, 'src/config/load-config.ts'), 'utf8');
    const read = new Set(
      [...config.matchAll(/env\.(MMDS_[A-Z0-9_]+)|readInteger\(env, '(MMDS_[A-Z0-9_]+)'/g)].map(
        (m) => m[1] ?? m[2]!,
      ),
    );
    expect(read.size).toBeGreaterThan(20);
    const help = [...named('src/cli/run-cli.ts')].filter((name) => name !== 'MMDS_SETTINGS');
    const missing = [...read, ...help].filter((name) => !MMDS_SETTINGS.includes(name) && !name.endsWith('_'));
    expect([...new Set(missing)].sort()).toEqual([]);
  });
});
