import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SHARED_DATA } from '../../helpers/paths.ts';

/** The CFTC's legacy futures-only file of 2025 (ten markets), as the publisher wrote it. */
export const LEGACY = join(SHARED_DATA, 'cftc/legacy_futures_only_2025_selected_markets.txt');

/**
 * Writes into `dir` a copy of the real legacy file with gold's open interest of 2025-03-11
 * corrected by +100 (a correction of a stored value) and returns its path.
 */
export function writeCorrectedLegacy(dir: string): string {
  const lines = readFileSync(LEGACY, 'latin1').split('\n');
  const index = lines.findIndex((line) => line.includes(',2025-03-11,088691,'));
  const fields = lines[index]!.split(',');
  fields[7] = ` ${Number(fields[7]) + 100}`;
  lines[index] = fields.join(',');
  const corrected = join(dir, 'annual.txt');
  writeFileSync(corrected, lines.join('\n'), 'latin1');
  return corrected;
}
