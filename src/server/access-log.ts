/**
 * The one log line every request writes, whichever path answered it (docs/operations.md, "Logs").
 * The public fast path and the general handler both build it from this type, in this key order.
 */
export type RequestLogLine = {
  event: 'request';
  request_id: string;
  method: string;
  /** The URL path, at most MAX_LOGGED_PATH characters. */
  path: string;
  status: number;
  /** Milliseconds from the handler's start to the response, to a tenth. */
  ms: number;
  ip: string;
  key_id: string | null;
  snapshot: string | null;
};

/** Longest path a log line holds. */
export const MAX_LOGGED_PATH = 200;

/** Milliseconds since `startedMs` (a `performance.now()` reading), rounded to a tenth. */
export function elapsedMs(startedMs: number): number {
  return Math.round((performance.now() - startedMs) * 10) / 10;
}

/** Text JSON.stringify gives back between quotes unchanged: printable ASCII but the quote and backslash. */
const PLAIN_TEXT = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

function jsonText(text: string): string {
  return PLAIN_TEXT.test(text) ? `"${text}"` : JSON.stringify(text);
}

function jsonNumber(value: number): string {
  return Number.isFinite(value) ? String(value) : 'null';
}

/** The fields of RequestLogLine in the order requestLineFields writes them: a new field fails to compile. */
export const REQUEST_LINE_KEYS = [
  'event',
  'request_id',
  'method',
  'path',
  'status',
  'ms',
  'ip',
  'key_id',
  'snapshot',
] as const satisfies readonly (keyof RequestLogLine)[];
const everyKeyWritten: Exclude<keyof RequestLogLine, (typeof REQUEST_LINE_KEYS)[number]> extends never
  ? true
  : never = true;
void everyKeyWritten;

/**
 * The fields of a request's log line as JSON, without the braces: exactly what JSON.stringify
 * writes for the line, made without its call into the runtime (a few percent of a fast answer).
 */
export function requestLineFields(line: RequestLogLine): string {
  return `"event":"request","request_id":${jsonText(line.request_id)},"method":${jsonText(line.method)},"path":${jsonText(line.path)},"status":${jsonNumber(line.status)},"ms":${jsonNumber(line.ms)},"ip":${jsonText(line.ip)},"key_id":${line.key_id === null ? 'null' : jsonText(line.key_id)},"snapshot":${line.snapshot === null ? 'null' : jsonText(line.snapshot)}`;
}
