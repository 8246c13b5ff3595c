import { ERROR_STATUS } from '../../../src/contract/errors.ts';

/** One request and what the server answered, from fetch or from a raw socket. */
export interface Exchange {
  method: string;
  /** What was sent as the request target (path and query), for messages and echo checks. */
  target: string;
  status: number;
  /** Header names in lowercase. */
  headers: Record<string, string>;
  body: string;
}

/**
 * Markers of internals that must never reach a client: a stack frame, a DuckDB error class,
 * SQL text and paths of the machine. SQL and path markers may appear only where the request
 * itself held them (a 400 names the unknown parameter, a 404 the unknown path, as sent).
 */
const ALWAYS_FORBIDDEN: ReadonlyArray<[string, RegExp]> = [
  ['a stack frame', /\n\s+at\s|\bat (async )?[\w$.<>]+ \((file:|node:|\/)/],
  ['an Error class name', /\b(TypeError|RangeError|ReferenceError|SyntaxError|URIError|ZodError)\b/],
  [
    'a DuckDB error',
    /\b(Binder|Parser|Catalog|Conversion|Invalid Input|Permission|IO|Internal|Constraint|Out of Range|Dependency|Transaction|Serialization|Interrupt) Error\b/,
  ],
  ['a DuckDB error position', /\bLINE 1:/],
];
const ECHOABLE_FORBIDDEN: ReadonlyArray<[string, RegExp]> = [
  ['SQL text', /\bSELECT\b[\s\S]{0,400}\bFROM\b|\bread_parquet\b/],
  ['the path /work', /\/work\b/i],
  ['the path /tmp', /\/tmp\b/i],
  ['node_modules', /node_modules/i],
  ['a .parquet file name', /\.parquet/i],
];

/** Decodes a request target as far as it goes, so that an echoed value can be recognised. */
function decodedForms(target: string): string {
  let text = target;
  const forms = [target];
  for (let i = 0; i < 3; i++) {
    try {
      text = decodeURIComponent(text.replace(/\+/g, ' '));
    } catch {
      break;
    }
    forms.push(text);
  }
  return forms.join('\n');
}

/**
 * Lists every way an exchange breaks the contract's error rules (empty when it keeps them all):
 * no 5xx; X-Request-Id on every response; every error body exactly
 * `{"error":{"code","message","request_id"}}` with the code's own status, `request_id` equal to
 * X-Request-Id and `Cache-Control: no-store`; the headers each error status must carry; and no
 * stack trace, SQL or machine path in any body.
 */
export function findContractViolations(exchange: Exchange): string[] {
  const problems: string[] = [];
  const { status, headers, body, method } = exchange;
  const requestId = headers['x-request-id'];
  if (status >= 500) problems.push(`status ${status}`);
  if (!requestId) problems.push('no X-Request-Id header');
  for (const [what, pattern] of ALWAYS_FORBIDDEN) if (pattern.test(body)) problems.push(`body shows ${what}`);
  const sent = decodedForms(exchange.target);
  for (const [what, pattern] of ECHOABLE_FORBIDDEN) {
    if (pattern.test(body) && !pattern.test(sent)) problems.push(`body shows ${what}`);
  }
  if (status < 400) return problems;
  if (headers['cache-control'] !== 'no-store')
    problems.push(`error Cache-Control ${headers['cache-control']}`);
  if (status === 401 && !/^Bearer\b/.test(headers['www-authenticate'] ?? ''))
    problems.push('401 without WWW-Authenticate: Bearer');
  if (status === 403 && !/^Bearer error="insufficient_scope"/.test(headers['www-authenticate'] ?? ''))
    problems.push('403 without the insufficient_scope challenge');
  if (status === 405 && headers.allow !== 'GET, HEAD, OPTIONS')
    problems.push(`405 with Allow ${headers.allow}`);
  if ((status === 429 || status === 503) && !/^[1-9]\d*$/.test(headers['retry-after'] ?? ''))
    problems.push(`${status} without a whole-second Retry-After`);
  if (method === 'HEAD') {
    if (body !== '') problems.push('HEAD error with a body');
    return problems;
  }
  if (!(headers['content-type'] ?? '').startsWith('application/json'))
    problems.push(`error Content-Type ${headers['content-type']}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    problems.push(`error body is not JSON: ${body.slice(0, 120)}`);
    return problems;
  }
  const error = (parsed as { error?: Record<string, unknown> } | null)?.error;
  if (!error || Object.keys(parsed as object).join() !== 'error') {
    problems.push(`error body is not the envelope: ${body.slice(0, 120)}`);
    return problems;
  }
  if (Object.keys(error).sort().join() !== 'code,message,request_id')
    problems.push(`error fields ${Object.keys(error).join(',')}`);
  const code = error.code as keyof typeof ERROR_STATUS;
  if (ERROR_STATUS[code] !== status) problems.push(`code ${String(error.code)} with status ${status}`);
  if (typeof error.message !== 'string' || error.message === '') problems.push('empty error message');
  if (error.request_id !== requestId) problems.push(`request_id ${String(error.request_id)} != ${requestId}`);
  return problems;
}

/** Lowercase header record of a fetch Response. */
export function headerRecord(headers: Headers): Record<string, string> {
  return Object.fromEntries([...headers].map(([name, value]) => [name.toLowerCase(), value]));
}
