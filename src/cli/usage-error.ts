/** The command was called wrongly (unknown source, missing file, bad flag value): exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
