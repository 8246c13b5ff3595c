import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { MmdsError } from '../lib/errors.ts';

/** Bad input in a source file: the CLI prints it as one line naming the file and line. */
export class InputError extends MmdsError {
  readonly file: string;
  readonly line: number | null;

  constructor(file: string, line: number | null, message: string) {
    super('input_refused', `${basename(file)}${line === null ? '' : `:${line}`}: ${message}`);
    this.name = 'InputError';
    this.file = file;
    this.line = line;
  }
}

/** Throws an InputError unless `file` can be read and is not empty (before a CSV reader sees it). */
export async function assertNonEmptyFile(file: string): Promise<void> {
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch (error) {
    throw new InputError(file, null, `cannot read file: ${(error as Error).message}`);
  }
  if (size === 0) throw new InputError(file, null, 'file is empty');
}

/** The first line of an error's message (DuckDB's run on over several). */
export function firstLine(error: unknown): string {
  return String(error instanceof Error ? error.message : error).split('\n')[0] ?? '';
}
