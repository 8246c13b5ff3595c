/**
 * Section e of `npm run bench`: the COT history backfill. Every CFTC file of
 * ../shared/data/cftc/history (the CFTC's zips read as they are) plus the current annual files are
 * ingested by one `mmds ingest cftc` into an empty store and published (time and peak RSS of
 * each); then one weekly update on top: the current TFF file's last report date was left out of
 * the backfill, and the whole file is ingested and published again, as `mmds update` does after
 * a release.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type MeasuredRun, REPO_ROOT, runMmds, runMmdsMeasured } from './processes.ts';

/** What section f measured. */
export interface CotHistoryResult {
  files: number;
  /** Reports the backfill added, and the one weekly update. */
  reports: number;
  weekly_reports: number;
  ingest: MeasuredRun;
  publish: MeasuredRun;
  weekly_ingest: MeasuredRun;
  weekly_publish: MeasuredRun;
}

const LIMIT_S = 30 * 60;
const ADDED = /cot_reports \+(\d+)/;

/** The current TFF file without the lines of its last report date (CRLF kept). */
function withoutLastWeek(file: string, dest: string): string {
  const lines = readFileSync(file, 'latin1').split('\r\n');
  const dates = lines.slice(1).map((line) => /,(\d{4}-\d{2}-\d{2}),/.exec(line)?.[1] ?? '');
  const last = [...dates].sort().at(-1) ?? '';
  const kept = [lines[0], ...lines.slice(1).filter((_, index) => dates[index] !== last)];
  writeFileSync(dest, kept.join('\r\n'), 'latin1');
  return last;
}

/** Runs section f in `dir` (an empty directory of its own). */
export async function measureCotHistory(
  sharedData: string,
  dir: string,
  log: (line: string) => void,
): Promise<CotHistoryResult> {
  const cftc = join(sharedData, 'cftc');
  const history = join(cftc, 'history');
  const current = readdirSync(cftc)
    .filter((name) => name.endsWith('.txt') && !name.includes('selected'))
    .map((name) => join(cftc, name));
  const weekly = current.find((file) => file.includes('tff'));
  if (weekly === undefined) throw new Error(`${cftc}: no current TFF file`);
  mkdirSync(join(dir, 'in'), { recursive: true });
  const trimmed = join(dir, 'in', 'FinFutYY.txt');
  const lastWeek = withoutLastWeek(weekly, trimmed);
  const files = [
    ...readdirSync(history)
      .filter((name) => /\.(txt|zip)$/.test(name))
      .map((name) => join(history, name)),
    ...current.filter((file) => file !== weekly),
    trimmed,
  ];
  const env = { MMDS_DATA_DIR: join(dir, 'data') };
  runMmds(['ingest', 'catalog', join(REPO_ROOT, 'data/catalog/catalog.yaml')], env);
  const measured = async (args: string[]) => {
    const run = await runMmdsMeasured(args, { env, timeoutS: LIMIT_S, log, progressS: 30 });
    if (!run.ok) throw new Error(`${run.command} failed: ${run.stderr_tail ?? ''}`);
    const { stdout, ...rest } = run;
    return { run: rest, added: Number(ADDED.exec(stdout)?.[1] ?? 0) };
  };
  log(`cot history: ingesting ${files.length} CFTC files into an empty store…`);
  const ingest = await measured(['ingest', 'cftc', ...files]);
  const publish = await measured(['publish']);
  log(`cot history: one weekly update (the TFF report of ${lastWeek})…`);
  const weeklyIngest = await measured(['ingest', 'cftc', weekly]);
  const weeklyPublish = await measured(['publish']);
  return {
    files: files.length,
    reports: ingest.added,
    weekly_reports: weeklyIngest.added,
    ingest: ingest.run,
    publish: publish.run,
    weekly_ingest: weeklyIngest.run,
    weekly_publish: weeklyPublish.run,
  };
}
