/**
 * The one error renderer (issue 33): an error and the form it is answered in give the status, the
 * header fields (header-rules.ts) and the body. The forms: the contract's JSON envelope over HTTP,
 * the HTML page a browser gets when the rate limit refuses a page, the raw-socket HTTP/1.1 answer
 * to what Node's parser refuses, the build's static error body, a JSON-RPC error (MCP's own
 * refusals) and an MCP tool call's refusal (the envelope with its status). The statuses and
 * JSON-RPC codes are the code table's (lib/errors.ts); httpErrorForm picks the form of an HTTP answer.
 */
import { STATUS_CODES } from 'node:http';
import { ERROR_RULES, type MmdsError } from '../lib/errors.ts';
import { type Failure, failure } from './envelope.ts';
import type { ApiError } from './errors.ts';
import { BASE_HEADERS, type HeaderPairs, NO_STORE } from './header-rules.ts';

const JSON_TYPE = 'application/json; charset=utf-8';
const HTML_TYPE = 'text/html; charset=utf-8';

/** The forms an ApiError is answered in. */
export type ApiErrorForm =
  /** The contract's envelope over HTTP, with the error's own fields (Retry-After, WWW-Authenticate…). */
  | { kind: 'envelope'; requestId: string }
  /** An HTML page for a browser; `page` writes it from the error (site/rate-limited-page.ts). */
  | { kind: 'html'; page: (error: ApiError) => string }
  /** A whole HTTP/1.1 answer for a socket Node's parser gave up on: the fields every response carries. */
  | { kind: 'raw-socket'; requestId: string }
  /** A body the build writes for a static host, which cannot mint request ids. */
  | { kind: 'static' }
  /** An MCP tool call's refusal: the envelope and its HTTP status, as an agent reads it. */
  | { kind: 'tool-result'; requestId: string };

/** A rendered error: status, the header fields to set (in order) and the body. */
export interface RenderedError {
  status: number;
  headers: HeaderPairs;
  body: Buffer;
}

/** A JSON-RPC error message, as a transport sends it. */
export interface JsonRpcError {
  jsonrpc: '2.0';
  id: string | number | null;
  error: { code: number; message: string };
}

/** A JSON-RPC refusal: the message for a transport, and the HTTP answer of POST /mcp. */
export interface RenderedRpcError extends RenderedError {
  message: JsonRpcError;
}

/** The refusal of a tool call: the envelope with the status the REST request would have got. */
export type ToolRefusal = Failure & { status: number };

/**
 * Renders an API error in one of its forms. The envelope, page and static forms are never cached
 * (`no-store`); the raw-socket form carries every response's fields and closes the connection.
 */
export function renderError(error: ApiError, form: ApiErrorForm): RenderedError {
  switch (form.kind) {
    case 'envelope':
      return answer(error, JSON_TYPE, Buffer.from(JSON.stringify(envelopeOf(error, form.requestId))));
    case 'html':
      return answer(error, HTML_TYPE, Buffer.from(form.page(error)));
    case 'static':
      return answer(error, JSON_TYPE, Buffer.from(JSON.stringify(envelopeOf(error, 'static'))));
    case 'tool-result': {
      const body = Buffer.from(JSON.stringify(toolRefusal(error, form.requestId)));
      return { status: error.status, headers: [], body };
    }
    case 'raw-socket': {
      const body = Buffer.from(JSON.stringify(envelopeOf(error, form.requestId)));
      return {
        status: error.status,
        headers: [
          ['Content-Type', JSON_TYPE],
          ['Content-Length', String(body.length)],
          ['Cache-Control', NO_STORE],
          ...BASE_HEADERS,
          ['X-Request-Id', form.requestId],
          ['Connection', 'close'],
        ],
        body,
      };
    }
  }
}

/** The refusal of an MCP tool call (or resource read) as a value: the envelope and its status. */
export function toolRefusal(error: ApiError, requestId: string): ToolRefusal {
  return { ...envelopeOf(error, requestId), status: error.status };
}

/**
 * Renders a JSON-RPC refusal of MCP's own (a line or body that is not JSON, not a message, params
 * the method refuses, a foreign Origin): the code table's JSON-RPC code and, over POST /mcp, its
 * status, with the body as the SDK's transport writes its own refusals.
 */
export function renderRpcError(error: MmdsError, id: string | number | null = null): RenderedRpcError {
  const rule = ERROR_RULES[error.code];
  const message: JsonRpcError = { jsonrpc: '2.0', id, error: { code: rule.rpc, message: error.message } };
  const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', error: message.error, id }));
  return {
    status: rule.status ?? 200,
    headers: [
      ['Content-Type', JSON_TYPE],
      ['Cache-Control', NO_STORE],
    ],
    body,
    message,
  };
}

/** The raw-socket form as the bytes written: status line, header fields, blank line, body. */
export function rawHttpAnswer(rendered: RenderedError): string {
  const fields = rendered.headers.map(([name, value]) => `${name}: ${value}\r\n`).join('');
  return `HTTP/1.1 ${rendered.status} ${STATUS_CODES[rendered.status]}\r\n${fields}\r\n${rendered.body}`;
}

/**
 * The form of an error answered over HTTP: the HTML page for a browser (it accepts HTML) refused
 * by the rate limit on a page (never under /api/), else the envelope.
 */
export function httpErrorForm(
  error: ApiError,
  path: string | null,
  accept: string | null,
): 'html' | 'envelope' {
  return error.code === 'rate_limited' && path !== null && !path.startsWith('/api/') && acceptsHtml(accept)
    ? 'html'
    : 'envelope';
}

/** Whether an Accept header takes HTML (a browser navigating). */
export function acceptsHtml(accept: string | null): boolean {
  return /(^|[\s,])text\/html\b/.test(accept ?? '');
}

function envelopeOf(error: ApiError, requestId: string): Failure {
  return failure(error.code, error.message, requestId);
}

/** An answer with the error's own fields, then its type, `no-store` and its length. */
function answer(error: ApiError, contentType: string, body: Buffer): RenderedError {
  return {
    status: error.status,
    headers: [
      ...Object.entries(error.headers),
      ['Content-Type', contentType],
      ['Cache-Control', NO_STORE],
      ['Content-Length', String(body.length)],
    ],
    body,
  };
}
