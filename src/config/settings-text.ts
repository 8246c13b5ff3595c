/**
 * The settings table (settings.ts) as people read it: the "Configuration" section of `mmds --help`
 * and the table of the README (test/unit/config/settings-text.test.ts keeps the README's in step).
 */
import type { Setting } from './setting.ts';
import { SETTINGS } from './settings.ts';

/** `(default 64; 128 counts each address)`, `(default 5)`, `(required for it)` or ''. */
function describeDefault(setting: Setting): string {
  const parts = [setting.default === '' ? '' : `default ${setting.default}`, setting.more ?? ''];
  const said = parts.filter((part) => part !== '').join('; ');
  return said === '' ? '' : ` (${said})`;
}

/**
 * Words of `text` in lines of at most `width` characters, the first at most `firstWidth` (a longer
 * word gets a line of its own).
 */
function wrap(text: string, firstWidth: number, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const limit = lines.length === 0 ? firstWidth : width;
    if (line !== '' && line.length + 1 + word.length > limit) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(line);
  return lines;
}

const NAME_COLUMN = 24;
const HELP_WIDTH = 100;

/** The "Configuration" section of `mmds --help`: one entry per setting, wrapped at 100 columns. */
export function formatSettingsHelp(settings: readonly Setting[] = SETTINGS): string {
  const entries = settings.map((setting) => {
    const name = `  ${setting.variable}`;
    const lead = name.length + 2 <= NAME_COLUMN ? name.padEnd(NAME_COLUMN) : `${name}  `;
    const text = `${setting.help}${describeDefault(setting)}`;
    const [head = '', ...tail] = wrap(text, HELP_WIDTH - lead.length, HELP_WIDTH - NAME_COLUMN);
    return [`${lead}${head}`, ...tail.map((line) => `${' '.repeat(NAME_COLUMN)}${line}`)].join('\n');
  });
  return `Configuration (environment, read once at start):\n${entries.join('\n')}`;
}

const cell = (text: string) => text.replaceAll('|', '\\|');
const code = (text: string) => (text === '' ? '' : `\`${text}\``);

/** The README's settings table (Markdown): variable, default, bounds, meaning. */
export function formatSettingsTable(settings: readonly Setting[] = SETTINGS): string {
  const rows = settings.map((setting) => {
    const bounds = setting.bounds ? `${setting.bounds[0]} to ${setting.bounds[1]}` : '';
    const meaning = setting.more ? `${setting.help} (${setting.more})` : setting.help;
    return `| ${code(setting.variable)} | ${code(cell(setting.default))} | ${bounds} | ${cell(meaning)} |`;
  });
  return ['| variable | default | bounds | what it sets |', '|---|---|---|---|', ...rows].join('\n');
}
