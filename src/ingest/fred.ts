import { open } from 'node:fs/promises';
import type { KnowledgeTime, ObservationInput } from '../model/records.ts';
import { readAlfredJsonFiles } from './fred-alfred-json.ts';
import { readFredCsvFile } from './fred-csv.ts';
import { InputError } from './input-error.ts';
import { parseIsoDate } from './periods.ts';
import { createEmptyBatch, type IngestContext, type Source } from './source.ts';
import { resolveVintageTime } from './vintage-time.ts';

/** `<source>.<native id>` (CONTRACT section 5), e.g. `bls.CES0000000001`. */
const SERIES_KEY = /^[a-z0-9]+\.[A-Za-z0-9_.-]+$/;

/** An observation with the file and line (null in JSON) it was read from, for error messages. */
export interface LocatedObservation {
  observation: ObservationInput;
  file: string;
  line: number | null;
  /** What to tell the user when two values clash at one knowledge time. */
  clashHint: string;
}

/** What one format reader found in its files. */
export interface FredRead {
  located: LocatedObservation[];
  rowsRead: number;
  rowsSkipped: number;
}

/**
 * FRED/ALFRED downloads: series CSV files (`observation_date,<ID>`, `DATE,<ID>`, `date,value`)
 * and the ALFRED JSON observations responses `mmds fetch` saves; the format is read from the
 * content. No fetch plan: both come one series per request, which a file list cannot express.
 */
export const fredSource: Source = {
  id: 'fred',
  description: 'FRED/ALFRED series CSV downloads and ALFRED JSON observations (realtime periods)',
  async parse(files, context) {
    const batch = createEmptyBatch();
    checkOptions(files, context);
    const csvFiles: string[] = [];
    const jsonFiles: string[] = [];
    for (const file of files) {
      if ((await sniffFormat(file)) === 'json') jsonFiles.push(file);
      else csvFiles.push(file);
    }
    const reads: FredRead[] = [];
    if (csvFiles.length > 0) {
      const knowledge = resolveCsvKnowledgeTime(csvFiles, context);
      for (const file of csvFiles) reads.push(await readFredCsvFile(file, context, knowledge));
    }
    if (jsonFiles.length > 0)
      reads.push(await readAlfredJsonFiles(jsonFiles, context.options, context.calendars));
    const located: LocatedObservation[] = [];
    for (const read of reads) {
      batch.rows_read += read.rowsRead;
      batch.rows_skipped += read.rowsSkipped;
      located.push(...read.located);
    }
    batch.observations = sortAndMergeRepeats(located);
    return batch;
  },
};

function checkOptions(files: readonly string[], context: IngestContext): void {
  const { vintage, series } = context.options;
  const where = files[0] ?? '(options)';
  if (series !== undefined && !SERIES_KEY.test(series)) {
    throw new InputError(where, null, `--series "${series}" is not a series key like bls.CES0000000001`);
  }
  if (vintage !== undefined && parseIsoDate(vintage) === null) {
    throw new InputError(where, null, `--vintage "${vintage}" is not a date YYYY-MM-DD`);
  }
}

/**
 * The knowledge time of every value of a CSV download: --observed-at, else the vintage date,
 * else when the file was collected. A file of unknown age is refused rather than stamped with
 * the clock, which would make `as_of` see revised values at times they were not yet known.
 */
function resolveCsvKnowledgeTime(files: readonly string[], context: IngestContext): KnowledgeTime {
  const { observedAt, vintage } = context.options;
  if (observedAt !== undefined) return { observed_at: observedAt, method: 'collected' };
  if (vintage !== undefined)
    return resolveVintageTime(vintage, context.options.series ?? '', context.calendars);
  if (context.collectedAt !== null) return { observed_at: context.collectedAt, method: 'collected' };
  throw new InputError(
    files[0] ?? '(options)',
    null,
    'when these values were known is not recorded: pass --vintage YYYY-MM-DD (the FRED/ALFRED ' +
      'vintage date of the download) or --observed-at <RFC 3339 time>',
  );
}

/** JSON starts with `{` (after a BOM and blanks); everything else is read as CSV. */
async function sniffFormat(file: string): Promise<'json' | 'csv'> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(file, 'r');
    const buffer = Buffer.alloc(256);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const start = buffer
      .toString('utf8', 0, bytesRead)
      .replace(/^\uFEFF/, '')
      .trimStart();
    return start.startsWith('{') ? 'json' : 'csv';
  } catch (error) {
    throw new InputError(file, null, `cannot read file: ${(error as Error).message}`);
  } finally {
    await handle?.close();
  }
}

/**
 * Sorts by series, period and knowledge time. The same value at the same knowledge time twice
 * (overlapping downloads) is kept once; two different values there cannot both be true.
 */
function sortAndMergeRepeats(located: LocatedObservation[]): ObservationInput[] {
  const key = ({ observation: o }: LocatedObservation) =>
    `${o.series_key}\u0000${o.period}\u0000${o.observed_at}`;
  located.sort((a, b) => {
    const [x, y] = [a.observation, b.observation];
    if (x.series_key !== y.series_key) return x.series_key < y.series_key ? -1 : 1;
    if (x.period !== y.period) return x.period.localeCompare(y.period);
    return x.observed_at.localeCompare(y.observed_at);
  });
  const kept: ObservationInput[] = [];
  for (let index = 0; index < located.length; index++) {
    const current = located[index];
    const previous = located[index - 1];
    if (!current) continue;
    if (previous && key(previous) === key(current)) {
      if (previous.observation.value === current.observation.value) continue;
      const { series_key, period, observed_at, value } = current.observation;
      throw new InputError(
        current.file,
        current.line,
        `${series_key} ${period} observed at ${observed_at} is also in ${previous.observation.source_ref} ` +
          `with a different value (${value} here, ${previous.observation.value} there): ${current.clashHint}`,
      );
    }
    kept.push(current.observation);
  }
  return kept;
}
