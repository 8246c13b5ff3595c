// The error of a configuration value that cannot be used, raised by config/ and by any layer
// below it that is handed a setting (keys/create-storage.ts: MMDS_STORAGE).
import { MmdsError } from './errors.ts';

/** A configuration value that cannot be used (the CLI exits 78 with its message). */
export class ConfigError extends MmdsError {
  constructor(message: string) {
    super('config', message);
    this.name = 'ConfigError';
  }
}
