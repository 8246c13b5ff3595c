/**
 * Measures appendBatch at scale on SYNTHETIC data (series `synthetic.Sxxxx`, invented values) in a
 * fresh temporary directory, never ./data. Two steps, each in its own process so that its peak
 * RSS is its own: `seed` appends N observations to an empty store; `append` then appends N
 * candidates for the same keys: half repeat the stored value (unchanged), a quarter are later
 * revisions, a quarter older vintages (backfills). Prints seconds and peak RSS per step.
 *
 *   npx node scripts/measure-append.ts [--rows 1000000] [--keep]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDuckDb } from '../src/db/duckdb.ts';
import type { ObservationInput } from '../src/model/records.ts';
import { appendBatch } from '../src/store/append-batch.ts';
import { resolveLayout } from '../src/store/layout.ts';

const SERIES = 1000;
const SEEDED_AT = Date.UTC(2020, 0, 1);
const HOUR = 3_600_000;

function argument(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index === -1 ? undefined : process.argv[index + 1];
}

function observation(index: number, value: number, observedAt: number): ObservationInput {
  const series = index % SERIES;
  const period = Math.floor(index / SERIES);
  return {
    series_key: `synthetic.S${String(series).padStart(4, '0')}`,
    period: `P${String(period).padStart(6, '0')}`,
    value,
    observed_at: `${new Date(observedAt).toISOString().slice(0, 19)}Z`,
    observed_at_method: 'vintage',
    source_ref: `synthetic:${index}`,
    verification_status: 'unverified',
    confidence: 1,
    data_class: 'derived',
  };
}

/** The rows of one step: the seed, or the mix of repeats, revisions and backfills on top of it. */
function rowsOf(step: string, rows: number): ObservationInput[] {
  return Array.from({ length: rows }, (_, index) => {
    const seeded = SEEDED_AT + (index % 97) * HOUR;
    if (step === 'seed') return observation(index, index / 8, seeded);
    switch (index % 4) {
      case 0:
      case 1:
        return observation(index, index / 8, seeded);
      case 2:
        return observation(index, index / 8 + 0.1, seeded + 1000 * HOUR);
      default:
        return observation(index, index / 8 - 0.1, seeded - 1000 * HOUR);
    }
  });
}

async function runStep(step: string, dataDir: string, rows: number): Promise<void> {
  const input = rowsOf(step, rows);
  // The parser's rows alone: the floor of this step's peak until parsers move to DuckDB.
  const inputMb = process.resourceUsage().maxRSS / 1024;
  const instance = await openDuckDb();
  const connection = await instance.connect();
  const started = performance.now();
  const result = await appendBatch(
    resolveLayout(dataDir),
    connection,
    { observations: input, rows_read: rows, rows_skipped: 0 },
    { source: 'synthetic', files: [], options: { step }, collectorVersion: 'measure', now: new Date() },
  );
  const seconds = (performance.now() - started) / 1000;
  connection.closeSync();
  instance.closeSync();
  const peakMb = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(
    `${JSON.stringify({ step, rows, seconds: Number(seconds.toFixed(2)), input_rss_mb: Math.round(inputMb), peak_rss_mb: Math.round(peakMb), counts: result.tables.observations })}\n`,
  );
}

const rows = Number(argument('--rows') ?? 1_000_000);
const step = argument('--step');
if (step !== undefined) {
  await runStep(step, argument('--dir')!, rows);
} else {
  const root = mkdtempSync(join(tmpdir(), 'mmds-measure-append-'));
  try {
    for (const next of ['seed', 'append']) {
      execFileSync(
        process.execPath,
        [process.argv[1]!, '--step', next, '--dir', join(root, 'data'), '--rows', String(rows)],
        { stdio: 'inherit' },
      );
    }
  } finally {
    if (process.argv.includes('--keep')) process.stdout.write(`kept ${root}\n`);
    else rmSync(root, { recursive: true, force: true });
  }
}
