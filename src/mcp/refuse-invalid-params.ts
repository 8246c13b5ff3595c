import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ClientRequestSchema,
  isJSONRPCRequest,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { renderRpcError } from '../contract/render-error.ts';
import { MmdsError } from '../lib/errors.ts';

/**
 * The SDK validates a request's params inside the handler it wraps, and answers a refusal there as
 * -32603 Internal error with the validator's whole dump as the message. JSON-RPC says -32602
 * Invalid params, and a client (or an agent reading it) needs one sentence, not a dump: the
 * requests are checked here first, against the same schemas the SDK's handlers parse with.
 */

/** The SDK's schema of each client request, by method. */
const SCHEMAS: ReadonlyMap<string, z.ZodType> = new Map(
  ClientRequestSchema.options.map((schema) => [schema.shape.method.value, schema as z.ZodType]),
);

/** How a schema's expected type reads in a message. */
const EXPECTED: Readonly<Record<string, string>> = {
  record: 'an object',
  object: 'an object',
  array: 'an array',
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
};

/**
 * The -32602 answer to a request whose params its method's schema refuses, or null: other
 * messages, methods the SDK has no schema for and valid requests go on to the SDK.
 */
export function paramsRefusal(message: JSONRPCMessage): JSONRPCErrorResponse | null {
  if (!isJSONRPCRequest(message)) return null;
  const schema = SCHEMAS.get(message.method);
  const parsed = schema?.safeParse(message);
  if (!parsed || parsed.success) return null;
  const [first, ...others] = parsed.error.issues;
  const more = others.length > 0 ? ` (and ${others.length} more problem${others.length > 1 ? 's' : ''})` : '';
  const text = `Invalid params for ${message.method}: ${first ? describeIssue(first, message) : 'refused'}${more}`;
  return renderRpcError(new MmdsError('rpc_invalid_params', text), message.id)
    .message as JSONRPCErrorResponse;
}

/**
 * Makes a connected transport answer requests with invalid params itself (paramsRefusal); call it
 * after server.connect(transport), which sets the handler it wraps, and before any message arrives.
 */
export function refuseInvalidParams(transport: Transport): void {
  const deliver = transport.onmessage;
  if (!deliver) throw new Error('refuseInvalidParams: connect the server to the transport first');
  transport.onmessage = (message, extra) => {
    const refusal = paramsRefusal(message);
    if (!refusal) deliver(message, extra);
    else transport.send(refusal).catch((error: Error) => transport.onerror?.(error));
  };
}

/** One problem in words: where it is and what was expected there. */
function describeIssue(issue: z.core.$ZodIssue, message: unknown): string {
  const where = issue.path.map(String).join('.') || 'the request';
  if (issue.code !== 'invalid_type') return `${where}: ${issue.message}`;
  const expected = EXPECTED[issue.expected] ?? issue.expected;
  const value = valueAt(message, issue.path);
  return value === undefined
    ? `${where} is required (${expected})`
    : `${where} must be ${expected}, not ${jsonType(value)}`;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value = root;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'number') return 'a number';
  return typeof value === 'boolean' ? 'a boolean' : typeof value;
}
