import type { Writable } from 'node:stream';

/** How far a counted piece of work has got (files rendered, steps of a plan, downloads). */
export interface ProgressCount {
  done: number;
  total: number;
}

/** Where a command writes: results to stdout, progress and messages to stderr. */
export interface Reporter {
  /**
   * Shows what is happening now. On a terminal it rewrites one status line, with a bar when a
   * count is given; otherwise it writes each new message once as a plain line on stderr (the
   * count is left out); under --json nothing.
   */
  progress(message: string, count?: ProgressCount): void;
  /** One line of human-readable output (suppressed under --json). */
  line(message: string): void;
  /** The command's machine-readable result (printed only under --json). */
  result(value: unknown): void;
  /** A warning, always on stderr. */
  warn(message: string): void;
  /**
   * A sentence for the person at the terminal, on stderr (stdout holds the result); under --json
   * nothing, as a script reading the document has no use for it and treats stderr as errors.
   */
  note(message: string): void;
}

/** Options of a reporter. */
export interface ReporterOptions {
  stdout: Writable;
  stderr: Writable;
  json: boolean;
  /** Whether stderr is a terminal (progress is drawn only there). */
  interactive: boolean;
  /** Milliseconds since some fixed point, for throttling redraws (default performance.now). */
  clock?: () => number;
  /**
   * Called when the --json result document has been written: a command that fails after it
   * (mmds update with a failed source) then gets no second document on stdout.
   */
  onResult?: () => void;
}

const BAR_WIDTH = 24;
/** A terminal redraw per file would cost more than rendering a small file: at most ten a second. */
const REDRAW_MS = 100;

/** Renders `message [#####-------]  12/345  3%`. */
export function formatProgressBar(message: string, count: ProgressCount): string {
  const total = Math.max(count.total, 1);
  const ratio = Math.min(Math.max(count.done / total, 0), 1);
  const filled = Math.round(ratio * BAR_WIDTH);
  const bar = `${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}`;
  return `${message} [${bar}] ${count.done}/${count.total} ${Math.floor(ratio * 100)}%`;
}

/** Creates the reporter a command writes through. */
export function createReporter(options: ReporterOptions): Reporter {
  const clock = options.clock ?? (() => performance.now());
  let statusShown = false;
  let lastMessage: string | null = null;
  let lastDrawn = Number.NEGATIVE_INFINITY;
  const clearStatus = () => {
    if (statusShown) options.stderr.write('\r\x1b[K');
    statusShown = false;
  };
  const draw = (message: string, count: ProgressCount | undefined) => {
    const now = clock();
    const finished = count !== undefined && count.done >= count.total;
    if (message === lastMessage && count !== undefined && !finished && now - lastDrawn < REDRAW_MS) return;
    lastMessage = message;
    lastDrawn = now;
    options.stderr.write(`\r\x1b[K${count ? formatProgressBar(message, count) : message}`);
    statusShown = true;
  };
  return {
    progress(message, count) {
      if (options.json) return;
      if (options.interactive) return draw(message, count);
      // A log gets each message once: counted ticks of one phase repeat its message.
      if (message === lastMessage) return;
      lastMessage = message;
      options.stderr.write(`${message}\n`);
    },
    line(message) {
      clearStatus();
      if (!options.json) options.stdout.write(`${message}\n`);
    },
    result(value) {
      clearStatus();
      if (!options.json) return;
      options.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
      options.onResult?.();
    },
    warn(message) {
      clearStatus();
      options.stderr.write(`warning: ${message}\n`);
    },
    note(message) {
      clearStatus();
      if (!options.json) options.stderr.write(`${message}\n`);
    },
  };
}
