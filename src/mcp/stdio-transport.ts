import type { Readable, Writable } from 'node:stream';
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { renderRpcError } from '../contract/render-error.ts';
import { MmdsError, type MmdsErrorCode } from '../lib/errors.ts';
import { paramsRefusal } from './refuse-invalid-params.ts';

/** The longest message line read, in bytes without its newline: the SDK's own limit, 10 MiB. */
export const MAX_LINE_BYTES = STDIO_DEFAULT_MAX_BUFFER_SIZE;

/** What a StdioTransport may be told besides its streams. */
export interface StdioTransportOptions {
  maxLineBytes?: number;
  /** Where a refused line is reported (one JSON object per call; `mmds mcp` writes it on stderr). */
  log?: (entry: Record<string, unknown>) => void;
}

/**
 * MCP over stdio, one JSON-RPC message per line, answering what the SDK's StdioServerTransport
 * only reports to onerror (or ends the session on, silently, for a line over its buffer): a line
 * that is not JSON gets -32700 Parse error, JSON that is no MCP message -32600 Invalid Request
 * (with the message's id when it has one, else null), a line over the limit -32600 as soon as
 * the limit is passed (the rest of that line is skipped unread), and a request with invalid
 * params -32602 (paramsRefusal). The session goes on after each.
 */
export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;

  readonly #input: Readable;
  readonly #output: Writable;
  readonly #maxLineBytes: number;
  readonly #log: (entry: Record<string, unknown>) => void;
  /** The pieces of the line read so far. */
  #line: Buffer[] = [];
  #lineBytes = 0;
  /** The line in progress is over the limit: its bytes are dropped up to its newline. */
  #skipping = false;

  constructor(input: Readable, output: Writable, options: StdioTransportOptions = {}) {
    this.#input = input;
    this.#output = output;
    this.#maxLineBytes = options.maxLineBytes ?? MAX_LINE_BYTES;
    this.#log = options.log ?? (() => {});
  }

  async start(): Promise<void> {
    this.#input.on('data', this.#onData);
    this.#input.on('error', this.#onError);
  }

  async close(): Promise<void> {
    this.#input.off('data', this.#onData);
    this.#input.off('error', this.#onError);
    if (this.#input.listenerCount('data') === 0) this.#input.pause();
    this.#line = [];
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.#output.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.#output.once('drain', resolve);
    });
  }

  readonly #onError = (error: Error): void => {
    this.onerror?.(error);
  };

  readonly #onData = (chunk: Buffer): void => {
    let start = 0;
    while (start <= chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      this.#append(chunk.subarray(start, newline === -1 ? chunk.length : newline));
      if (newline === -1) return;
      this.#endLine();
      start = newline + 1;
    }
  };

  #append(part: Buffer): void {
    if (this.#skipping || part.length === 0) return;
    this.#lineBytes += part.length;
    if (this.#lineBytes <= this.#maxLineBytes) {
      this.#line.push(part);
      return;
    }
    this.#skipping = true;
    this.#line = [];
    this.#log({ event: 'mcp_line_refused', reason: 'too_long', max_bytes: this.#maxLineBytes });
    this.#refuse(
      'rpc_invalid_request',
      `Invalid Request: a message line is at most ${this.#maxLineBytes} bytes; the rest of this one was skipped, and the request it carried gets no other answer`,
      null,
    );
  }

  #endLine(): void {
    const text = Buffer.concat(this.#line).toString('utf8').replace(/\r$/, '');
    const skipped = this.#skipping;
    this.#line = [];
    this.#lineBytes = 0;
    this.#skipping = false;
    if (skipped || text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.#log({ event: 'mcp_line_refused', reason: 'not_json', bytes: text.length });
      this.#refuse('rpc_parse_error', 'Parse error: the line is not JSON', null);
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      this.#log({ event: 'mcp_line_refused', reason: 'not_a_message', bytes: text.length });
      this.#refuse(
        'rpc_invalid_request',
        'Invalid Request: not a JSON-RPC 2.0 message of MCP (one object per line with "jsonrpc": "2.0" and a "method", or a response)',
        idOf(value),
      );
      return;
    }
    const refusal = paramsRefusal(parsed.data);
    if (refusal) void this.send(refusal);
    else this.onmessage?.(parsed.data);
  }

  #refuse(code: MmdsErrorCode, message: string, id: string | number | null): void {
    // JSON-RPC 2.0: an error about a message whose id cannot be read carries id null.
    void this.send(
      renderRpcError(new MmdsError(code, message), id).message as unknown as JSONRPCErrorResponse,
    );
  }
}

/** The id of something sent as a request, when it has a usable one. */
function idOf(value: unknown): string | number | null {
  const id = value !== null && typeof value === 'object' ? (value as { id?: unknown }).id : undefined;
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)) ? id : null;
}
