import type { Writable } from 'node:stream';
import type { Config } from '../config/load-config.ts';
import type { Reporter } from './reporter.ts';

/** What every command receives from the composition root: configuration, clock and output. */
export interface CliContext {
  config: Readonly<Config>;
  now: () => Date;
  stdout: Writable;
  stderr: Writable;
  /** stderr is a terminal: draw progress. */
  interactive: boolean;
}

/** A command's view of the context once global flags are known. */
export interface CommandContext extends CliContext {
  reporter: Reporter;
}
