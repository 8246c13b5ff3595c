/**
 * The one error type of mmds and its one code table (issue 34). Every error class of src/ extends
 * MmdsError with a code, and ERROR_RULES gives each code its HTTP status, the exit code and
 * --json `error.code` of `mmds`, the JSON-RPC error code of MCP and whether the same request may
 * succeed later. run-cli.ts, the server's and MCP's error answers (contract/render-error.ts) and
 * the build's error bodies read this table: a new code is one row here. docs/errors.md is the
 * table in prose.
 */

/** Exit codes of `mmds` (sysexits-style where one fits), the same for every command. */
export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  nothingNew: 3,
  unavailable: 69,
  internal: 70,
  locked: 75,
  config: 78,
} as const;

/** How a failed command ends: the `error.code` of its --json document and its exit code. */
export const CLI_OUTCOMES = {
  failed: EXIT.failure,
  usage: EXIT.usage,
  unavailable: EXIT.unavailable,
  internal: EXIT.internal,
  locked: EXIT.locked,
  config: EXIT.config,
} as const;

export type CliOutcome = keyof typeof CLI_OUTCOMES;

/** The `error.code` of the --json error document for each failing exit code. */
export const EXIT_ERROR_CODES: Readonly<Record<number, string>> = Object.freeze(
  Object.fromEntries(Object.entries(CLI_OUTCOMES).map(([code, exit]) => [exit, code])),
);

/** JSON-RPC 2.0 error codes, and MCP's code of an unknown resource. */
export const RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  invalidParams: -32602,
  serverError: -32000,
  resourceNotFound: -32002,
} as const;

interface ApiRule {
  status: number;
  rpc: number;
  retryable: boolean;
}

/**
 * The codes of the API's error envelope (CONTRACT section 1, and the statuses the server adds for
 * what it refuses before routing). Their JSON-RPC code is that of a refused MCP resource read:
 * -32002 for an unknown resource, -32600 for any other refusal. The API answers them: one reaching
 * the command line unanswered is a bug (`internal`, exit 70).
 */
const API_RULES = {
  invalid_parameter: { status: 400, rpc: RPC.invalidRequest, retryable: false },
  unauthorized: { status: 401, rpc: RPC.invalidRequest, retryable: false },
  insufficient_scope: { status: 403, rpc: RPC.invalidRequest, retryable: false },
  not_found: { status: 404, rpc: RPC.resourceNotFound, retryable: false },
  method_not_allowed: { status: 405, rpc: RPC.invalidRequest, retryable: false },
  gone: { status: 410, rpc: RPC.invalidRequest, retryable: false },
  payload_too_large: { status: 413, rpc: RPC.invalidRequest, retryable: false },
  uri_too_long: { status: 414, rpc: RPC.invalidRequest, retryable: false },
  unsupported_media_type: { status: 415, rpc: RPC.invalidRequest, retryable: false },
  rate_limited: { status: 429, rpc: RPC.invalidRequest, retryable: true },
  header_fields_too_large: { status: 431, rpc: RPC.invalidRequest, retryable: false },
  internal_error: { status: 500, rpc: RPC.invalidRequest, retryable: false },
  unavailable: { status: 503, rpc: RPC.invalidRequest, retryable: true },
} as const satisfies Record<string, ApiRule>;

/** A code of the API's error envelope. */
export type ApiErrorCode = keyof typeof API_RULES;

interface OtherRule {
  cli: CliOutcome;
  retryable: boolean;
  /** The API code an HTTP or MCP client gets instead (a query timeout is a 503); internal_error when absent. */
  answeredAs?: ApiErrorCode;
  /** A JSON-RPC refusal of MCP's own: its code, and its HTTP status over POST /mcp (null: stdio, or 200). */
  rpc?: { code: number; status: number | null };
  /** The stderr line (and --json message) made of the error's message; the message itself when absent. */
  say?: (message: string) => string;
}

const storeUnchanged = (message: string): string => `${message} (the store is unchanged)`;

/**
 * Every other code: the command line's failures, the refusals of MCP's JSON-RPC layer, and the
 * server's own conditions. A code whose reaching the command line would be a bug (a refusal of
 * the server or of a transport that escaped it) is `internal`, as any error without a code.
 */
const OTHER_RULES = {
  usage: { cli: 'usage', retryable: false },
  output_dir_refused: { cli: 'usage', retryable: false },
  config: { cli: 'config', retryable: false, say: (message) => `configuration: ${message}` },
  failed: { cli: 'failed', retryable: false },
  input_refused: { cli: 'failed', retryable: false, say: storeUnchanged },
  revision_refused: { cli: 'failed', retryable: false, say: storeUnchanged },
  publish_refused: {
    cli: 'failed',
    retryable: false,
    say: (message) =>
      `${message}; CURRENT is unchanged: fix the input named above, ingest it again, then publish`,
  },
  knowledge_ahead: { cli: 'failed', retryable: false },
  drop_refused: { cli: 'failed', retryable: false },
  lost_commit: { cli: 'failed', retryable: true },
  dist_upload_failed: { cli: 'failed', retryable: false },
  key_invalid_input: { cli: 'usage', retryable: false },
  key_not_found: { cli: 'usage', retryable: false },
  key_conflict: { cli: 'failed', retryable: false },
  key_record_invalid: { cli: 'failed', retryable: false },
  hook_not_found: { cli: 'usage', retryable: false },
  hook_record_invalid: { cli: 'failed', retryable: false },
  fetch_failed: { cli: 'unavailable', retryable: true, say: storeUnchanged },
  storage_unreachable: { cli: 'unavailable', retryable: true },
  bucket_unreachable: { cli: 'unavailable', retryable: true },
  bucket_credentials: { cli: 'config', retryable: false },
  bucket_missing: { cli: 'unavailable', retryable: false },
  bucket_denied: { cli: 'unavailable', retryable: false },
  bucket_no_conditional_writes: { cli: 'unavailable', retryable: false },
  bucket_failed: { cli: 'unavailable', retryable: true },
  bucket_object_damaged: { cli: 'internal', retryable: true },
  bucket_log_unreadable: { cli: 'internal', retryable: true },
  locked: { cli: 'locked', retryable: true },
  query_timeout: { cli: 'internal', retryable: true, answeredAs: 'unavailable' },
  snapshot_gone: { cli: 'internal', retryable: false },
  event_gone: { cli: 'internal', retryable: false },
  rpc_parse_error: { cli: 'internal', retryable: false, rpc: { code: RPC.parseError, status: 400 } },
  rpc_invalid_request: { cli: 'internal', retryable: false, rpc: { code: RPC.invalidRequest, status: null } },
  rpc_invalid_params: { cli: 'internal', retryable: false, rpc: { code: RPC.invalidParams, status: null } },
  rpc_forbidden: { cli: 'internal', retryable: false, rpc: { code: RPC.serverError, status: 403 } },
} as const satisfies Record<string, OtherRule>;

/** Every code an MmdsError may carry. */
export type MmdsErrorCode = ApiErrorCode | keyof typeof OTHER_RULES;

/** What one code means to each way mmds answers. */
export interface ErrorRule {
  /** HTTP status (for a code outside the envelope's: that of the code it is answered as); null: none. */
  status: number | null;
  /** The envelope's `error.code` when it reaches an HTTP or MCP client; null for a JSON-RPC refusal. */
  api: ApiErrorCode | null;
  /** Exit code of `mmds` and the `error.code` of its --json document. */
  exit: number;
  json: CliOutcome;
  /** JSON-RPC error code. */
  rpc: number;
  /** Whether the same request may succeed later unchanged. */
  retryable: boolean;
  /** The command line's message from the error's. */
  say: (message: string) => string;
}

const same = (message: string): string => message;

function apiRule(rule: ApiRule, code: ApiErrorCode): ErrorRule {
  const { status, rpc, retryable } = rule;
  return { status, api: code, exit: EXIT.internal, json: 'internal', rpc, retryable, say: same };
}

function otherRule(rule: OtherRule): ErrorRule {
  const answeredAs = rule.rpc ? null : (rule.answeredAs ?? 'internal_error');
  const as = answeredAs === null ? null : API_RULES[answeredAs];
  return {
    status: rule.rpc ? rule.rpc.status : as!.status,
    api: answeredAs,
    exit: CLI_OUTCOMES[rule.cli],
    json: rule.cli,
    rpc: rule.rpc ? rule.rpc.code : as!.rpc,
    retryable: rule.retryable,
    say: rule.say ?? same,
  };
}

/** The one code table. */
export const ERROR_RULES: Readonly<Record<MmdsErrorCode, ErrorRule>> = Object.freeze({
  ...(Object.fromEntries(
    Object.entries(API_RULES).map(([code, rule]) => [code, apiRule(rule, code as ApiErrorCode)]),
  ) as Record<ApiErrorCode, ErrorRule>),
  ...(Object.fromEntries(
    Object.entries(OTHER_RULES).map(([code, rule]) => [code, otherRule(rule as OtherRule)]),
  ) as Record<keyof typeof OTHER_RULES, ErrorRule>),
});

/** The HTTP status of each code of the API's envelope. */
export const ERROR_STATUS = Object.freeze(
  Object.fromEntries(Object.entries(API_RULES).map(([code, rule]) => [code, rule.status])),
) as { readonly [code in ApiErrorCode]: (typeof API_RULES)[code]['status'] };

/** Whether a code is one of the API envelope's. */
export function isApiErrorCode(code: string): code is ApiErrorCode {
  return Object.hasOwn(API_RULES, code);
}

/** The base of every error mmds throws on purpose: a message and a code of ERROR_RULES. */
export class MmdsError extends Error {
  readonly code: MmdsErrorCode;

  constructor(code: MmdsErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'MmdsError';
    this.code = code;
  }

  /** Lines printed on stderr before the one-line message (a refused publish's problems); none here. */
  details(): string {
    return '';
  }
}

/** The rule of an error with a code, or null for any other thrown value. */
export function ruleOf(error: unknown): ErrorRule | null {
  return error instanceof MmdsError ? ERROR_RULES[error.code] : null;
}

/** Whether a thrown value is an MmdsError with this code. */
export function hasErrorCode(error: unknown, code: MmdsErrorCode): error is MmdsError {
  return error instanceof MmdsError && error.code === code;
}
