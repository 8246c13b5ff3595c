import { MmdsError } from '../lib/errors.ts';

/** The command already printed what went wrong; exit non-zero with this one line. */
export class ReportedFailure extends MmdsError {
  constructor(message: string) {
    super('failed', message);
    this.name = 'ReportedFailure';
  }
}

/** The command finished and says so with a documented exit status other than 0 (no message). */
export class ExitStatus extends Error {
  readonly code: number;

  constructor(code: number, meaning: string) {
    super(meaning);
    this.name = 'ExitStatus';
    this.code = code;
  }
}
