/** A configuration value that cannot be used (the CLI exits 78 with its message). */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}
