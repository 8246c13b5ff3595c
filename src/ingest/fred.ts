import { open } from 'node:fs/promises';
import type { KnowledgeTime, RecordBatch } from '../model/records.ts';
import { readAlfredJsonFiles } from './fred-alfred-json.ts';
import { readFredCsvFile } from './fred-csv.ts';
import { InputError } from './input-error.ts';
import { type LocatedObservation, sortLocatedObservations } from './located-observations.ts';
import { parseIsoDate } from './periods.ts';
import { createEmptyBatch, type IngestContext, type Source } from './source.ts';
import { resolveVintageTime } from './vintage-time.ts';

/** `<source>.<native id>` (CONTRACT section 5), e.g. `bls.CES0000000001`. */
const SERIES_KEY = /^[a-z0-9]+\.[A-Za-z0-9_.-]+$/;

export type { LocatedObservation } from './located-observations.ts';

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
export const fredSource: Source<RecordBatch> = {
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
    // The same value at one knowledge time twice (overlapping downloads) is kept once.
    batch.observations = sortLocatedObservations(located, { kind: 'keep-equal' });
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
