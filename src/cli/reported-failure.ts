/** The command already printed what went wrong; exit non-zero with this one line. */
export class ReportedFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReportedFailure';
  }
}
