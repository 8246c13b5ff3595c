import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createProgram, loadAllCommands } from '../../../src/cli/run-cli.ts';
import { loadConfig, MMDS_SETTINGS } from '../../../src/config/load-config.ts';
import { SETTINGS } from '../../../src/config/settings.ts';
import { formatSettingsHelp, formatSettingsTable } from '../../../src/config/settings-text.ts';
import { REPO_ROOT } from '../../helpers/paths.ts';

/**
 * One settings table (src/config/settings.ts) makes loadConfig, `mmds --help`, the unknown-variable
 * warning and the README's table (issue 34); MMDS_SETTINGS is what mmds warns against ("… is not a
 * setting of mmds"): a variable read but missing from it would be read and warned about at once.
 */
describe('the settings table', () => {
  const source = (file: string) => readFileSync(join(REPO_ROOT, file), 'utf8');

  it('is the only place src/ names an MMDS_* variable it reads', () => {
    const files = readdirSync(join(REPO_ROOT, 'src'), { recursive: true, encoding: 'utf8' }).filter((file) =>
      file.endsWith('.ts'),
    );
    const reads = files.flatMap((file) =>
      [...source(join('src', file)).matchAll(/env(?:\.|\[')(MMDS_[A-Z0-9_]+)/g)].map(
        (m) => `${file}: ${m[1]}`,
      ),
    );
    expect(reads).toEqual([]);
    const variables = SETTINGS.map((setting) => setting.variable);
    expect(new Set(variables).size).toBe(variables.length);
    expect(MMDS_SETTINGS).toContain('MMDS_CFTC_BASE_URL');
    expect(MMDS_SETTINGS.length).toBeGreaterThan(40);
  });

  it('the README holds the table as generated', () => {
    const readme = source('README.md');
    const table = /<!-- settings:start -->\n([\s\S]*?)\n<!-- settings:end -->/.exec(readme)?.[1];
    expect(table, 'README.md: the settings table between its markers').toBe(formatSettingsTable());
  });

  it('mmds --help lists every setting with its default', async () => {
    const program = createProgram(
      {
        config: loadConfig({}, REPO_ROOT),
        now: () => new Date(),
        stdout: process.stdout,
        stderr: process.stderr,
        interactive: false,
      },
      await loadAllCommands(),
    );
    let help = '';
    program.configureOutput({ writeOut: (text) => (help += text) });
    program.outputHelp();
    expect(help).toContain(formatSettingsHelp());
    for (const setting of SETTINGS) {
      expect(help).toContain(`  ${setting.variable}  `);
      if (setting.default !== '') expect(help.replace(/\s+/g, ' ')).toContain(`default ${setting.default}`);
    }
    for (const line of formatSettingsHelp().split('\n')) expect(line.length, line).toBeLessThanOrEqual(100);
  });

  it('loadConfig reads every integer setting within its bounds and refuses one past them', () => {
    const at = (config: unknown, name: string) =>
      name.split('.').reduce((value, key) => (value as Record<string, unknown>)[key], config);
    for (const setting of SETTINGS.filter((s) => s.bounds)) {
      const [min, max] = setting.bounds!;
      for (const value of [min, max])
        if (setting.variable !== 'MMDS_HOOKS_LEASE_MS' || value > 15_000)
          expect(at(loadConfig({ [setting.variable]: String(value) }, REPO_ROOT), setting.name)).toBe(value);
      for (const value of [min - 1, max + 1, min + 0.5])
        expect(() => loadConfig({ [setting.variable]: String(value) }, REPO_ROOT)).toThrow(
          `${setting.variable} must be an integer from ${min} to ${max}, got "${value}"`,
        );
    }
    // Unset, each takes the default the help prints (the fetch defaults are the download's own).
    const defaults = loadConfig({}, REPO_ROOT);
    for (const setting of SETTINGS.filter(
      (s) => s.bounds && s.default !== '' && !s.name.startsWith('fetch.'),
    ))
      if (setting.variable !== 'MMDS_HOOKS_LEASE_MS')
        expect(at(defaults, setting.name), setting.variable).toBe(Number(setting.default));
  });

  it('warns of an MMDS_* variable no row reads, naming the nearest', () => {
    const config = loadConfig(
      { MMDS_SNAPSHOT_POLL: '5', MMDS_ZZZZZZZZZZZZ: '1', MMDS_TZ_BASE_URL: '' },
      REPO_ROOT,
    );
    expect(config.warnings).toEqual([
      'MMDS_SNAPSHOT_POLL is not a setting of mmds; did you mean MMDS_SNAPSHOT_POLL_MS?',
      'MMDS_ZZZZZZZZZZZZ is not a setting of mmds (mmds --help lists them)',
    ]);
  });
});
