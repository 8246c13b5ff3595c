/**
 * Measures the publishing pipeline on the real files of ../shared/data: every ingest of
 * REAL_DATA_STEPS and one publish, through the real CLI (in-process, real clock), in a fresh
 * temporary data directory that is removed afterwards. Prints a table per step (seconds, rows
 * added, batch) and per table of the snapshot (rows and Parquet bytes from the manifest).
 *
 *   npx node scripts/measure-pipeline.ts [--keep]   (--keep leaves the data directory in place)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { PassThrough } from 'node:stream';
import { runCli } from '../src/cli/run-cli.ts';
import { loadConfig } from '../src/config/load-config.ts';
import { resolveLayout } from '../src/store/layout.ts';
import { readCurrentId, readManifest } from '../src/store/manifest.ts';
import { REAL_DATA_STEPS } from '../test/helpers/snapshot-fixture.ts';

interface StepResult {
  label: string;
  seconds: number;
  added: number;
  batch: string | null;
}

const keepDir = process.argv.includes('--keep');
const root = mkdtempSync(join(tmpdir(), 'mmds-measure-'));
const dataDir = join(root, 'data');
const config = loadConfig({ MMDS_DATA_DIR: dataDir, MMDS_DIST_DIR: join(root, 'dist') }, process.cwd());

/** Runs one `mmds --json ...` command and returns its parsed JSON result and elapsed seconds. */
async function run(argv: readonly string[]): Promise<{ seconds: number; result: Record<string, unknown> }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (chunk: Buffer) => out.push(chunk));
  stderr.on('data', (chunk: Buffer) => err.push(chunk));
  const started = performance.now();
  const code = await runCli(['--json', ...argv], {
    config,
    now: () => new Date(),
    stdout,
    stderr,
    interactive: false,
  });
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) {
    throw new Error(`mmds ${argv.join(' ')} exited ${code}: ${Buffer.concat(err).toString().trim()}`);
  }
  return { seconds, result: JSON.parse(Buffer.concat(out).toString()) as Record<string, unknown> };
}

function describeStep(step: readonly string[]): string {
  const [source, ...rest] = step;
  const files = rest.filter((arg, i) => !arg.startsWith('--') && !rest[i - 1]?.startsWith('--'));
  const more = files.length > 1 ? ` (+${files.length - 1} more)` : '';
  return `${source} ${basename(files[0] ?? '')}${more}`;
}

function formatTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i === 0 ? `:${'-'.repeat(w + 1)}` : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

try {
  const steps: StepResult[] = [];
  const total = performance.now();
  for (const step of REAL_DATA_STEPS) {
    const { seconds, result } = await run(['ingest', ...step]);
    const tables = result.tables as Record<string, { added: number }>;
    steps.push({
      label: `ingest ${describeStep(step)}`,
      seconds,
      added: Object.values(tables).reduce((sum, counts) => sum + counts.added, 0),
      batch: result.batch_id as string | null,
    });
  }
  const published = await run(['publish']);
  steps.push({
    label: 'publish',
    seconds: published.seconds,
    added: 0,
    batch: published.result.snapshot_id as string,
  });
  const totalSeconds = (performance.now() - total) / 1000;

  const layout = resolveLayout(dataDir);
  const snapshotId = readCurrentId(layout);
  if (snapshotId === null) throw new Error('publish left no CURRENT');
  const manifest = readManifest(layout, snapshotId);
  const tableRows = Object.entries(manifest.tables).map(([name, entry]) => [
    name,
    String(entry.rows),
    String(entry.bytes),
  ]);
  const totalRows = Object.values(manifest.tables).reduce((sum, entry) => sum + entry.rows, 0);
  const totalBytes = Object.values(manifest.tables).reduce((sum, entry) => sum + entry.bytes, 0);

  process.stdout.write(
    `mmds pipeline on ../shared/data (Node ${process.version}, ${new Date().toISOString()})\n\n`,
  );
  process.stdout.write(
    `${formatTable(
      ['step', 'seconds', 'rows added', 'batch / snapshot'],
      [
        ...steps.map((s) => [
          s.label,
          s.seconds.toFixed(2),
          s.label === 'publish' ? '' : String(s.added),
          s.batch ?? '',
        ]),
        ['total', totalSeconds.toFixed(2), '', ''],
      ],
    )}\n\n`,
  );
  process.stdout.write(
    `${formatTable(
      ['table', 'rows', 'Parquet bytes'],
      [...tableRows, ['total', String(totalRows), String(totalBytes)]],
    )}\n`,
  );
  if (keepDir) process.stdout.write(`\ndata directory kept: ${dataDir}\n`);
} finally {
  if (!keepDir) rmSync(root, { recursive: true, force: true });
}
