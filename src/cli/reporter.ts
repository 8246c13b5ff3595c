import type { Writable } from 'node:stream';

/** Where a command writes: results to stdout, progress and messages to stderr. */
export interface Reporter {
  /** Shows what is happening now; on a terminal it rewrites one status line, otherwise nothing. */
  progress(message: string): void;
  /** One line of human-readable output (suppressed under --json). */
  line(message: string): void;
  /** The command's machine-readable result (printed only under --json). */
  result(value: unknown): void;
  /** A warning, always on stderr. */
  warn(message: string): void;
}

/** Options of a reporter. */
export interface ReporterOptions {
  stdout: Writable;
  stderr: Writable;
  json: boolean;
  /** Whether stderr is a terminal (progress is drawn only there). */
  interactive: boolean;
}

/** Creates the reporter a command writes through. */
export function createReporter(options: ReporterOptions): Reporter {
  let statusShown = false;
  const clearStatus = () => {
    if (statusShown) options.stderr.write('\r\x1b[K');
    statusShown = false;
  };
  return {
    progress(message) {
      if (!options.interactive) return;
      options.stderr.write(`\r\x1b[K${message}`);
      statusShown = true;
    },
    line(message) {
      clearStatus();
      if (!options.json) options.stdout.write(`${message}\n`);
    },
    result(value) {
      clearStatus();
      if (options.json) options.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    },
    warn(message) {
      clearStatus();
      options.stderr.write(`warning: ${message}\n`);
    },
  };
}
