import { basename } from 'node:path';

/** Bad input in a source file: the CLI prints it as one line naming the file and line. */
export class InputError extends Error {
  readonly file: string;
  readonly line: number | null;

  constructor(file: string, line: number | null, message: string) {
    super(`${basename(file)}${line === null ? '' : `:${line}`}: ${message}`);
    this.name = 'InputError';
    this.file = file;
    this.line = line;
  }
}
