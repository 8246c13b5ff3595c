/**
 * The JSON log lines of `mmds serve`: one line per event, `{"ts":…, ...entry}`, written once per
 * event-loop turn. A worker of `mmds serve --workers N` writes the same lines with `"worker":<n>`
 * after `ts`, and hands them to the primary, which alone writes stdout (lines of two processes
 * never interleave).
 */
import { type RequestLogLine, requestLineFields } from './access-log.ts';

/** A line logger and the function that writes what it holds at once. */
export interface LineLog {
  log: (entry: Record<string, unknown>) => void;
  flush: () => void;
}

/** Creates the logger that hands whole lines to `write`, batched per event-loop turn. */
export function createLineLog(write: (lines: string) => void, worker?: number): LineLog {
  // A write() per request line cost about a sixth of the server's CPU under load (BENCHMARKS.md).
  let pending: string[] = [];
  const flush = () => {
    if (pending.length === 0) return;
    const lines = pending.join('');
    pending = [];
    write(lines);
  };
  // The line is built without copying the entry into a new object, and the time text is made
  // once per millisecond: together a third of the cost per request line.
  let lastMs = -1;
  let lastTs = '';
  const head = worker === undefined ? '' : `,"worker":${worker}`;
  const log = (entry: Record<string, unknown>) => {
    if (pending.length === 0) setImmediate(flush);
    const now = Date.now();
    if (now !== lastMs) {
      lastMs = now;
      lastTs = new Date(now).toISOString();
    }
    // A request line (one per request) is written by its own formatter, every other by JSON.stringify.
    const fields =
      entry.event === 'request'
        ? requestLineFields(entry as RequestLogLine)
        : JSON.stringify(entry).slice(1, -1);
    pending.push(`{"ts":"${lastTs}"${head}${fields === '' ? '' : `,${fields}`}}\n`);
  };
  return { log, flush };
}
