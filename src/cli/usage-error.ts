import { MmdsError } from '../lib/errors.ts';

/** The command was called wrongly (unknown source, missing file, bad flag value): exit code 2. */
export class UsageError extends MmdsError {
  constructor(message: string) {
    super('usage', message);
    this.name = 'UsageError';
  }
}
