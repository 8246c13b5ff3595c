import { MmdsError } from '../lib/errors.ts';

/** A configuration value that cannot be used (the CLI exits 78 with its message). */
export class ConfigError extends MmdsError {
  constructor(message: string) {
    super('config', message);
    this.name = 'ConfigError';
  }
}
