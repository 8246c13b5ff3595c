import type { Duplex } from 'node:stream';
import { failure } from '../contract/envelope.ts';
import { ERROR_STATUS } from '../contract/errors.ts';
import { BASE_HEADERS, NO_STORE } from '../contract/header-rules.ts';
import { createRequestId } from './request-id.ts';

/** The fields every response carries (CORS, exposed headers, nosniff), as header lines. */
const BASE_LINES = BASE_HEADERS.map(([name, value]) => `${name}: ${value}\r\n`).join('');

/**
 * Answers what Node's HTTP parser refuses before any handler runs (a NUL or raw non-ASCII byte in
 * the URL, a malformed request line or header, headers over `maxHeaderSize`) in the contract's
 * error envelope instead of Node's bare status line. A client too slow to send its headers, or
 * one whose response has begun, is disconnected. Listens on the server's `clientError` event.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex, maxHeaderSize: number): void {
  const responding = (socket as Duplex & { _httpMessage?: unknown })._httpMessage;
  if (
    !socket.writable ||
    responding ||
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ||
    error.code === 'ECONNRESET'
  ) {
    socket.destroy();
    return;
  }
  const requestId = createRequestId();
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const code = tooLarge ? 'header_fields_too_large' : 'invalid_parameter';
  const message = tooLarge
    ? `the request headers are larger than ${maxHeaderSize} bytes`
    : 'the request is not valid HTTP/1.1: the URL or a header holds bytes that are not allowed';
  const body = JSON.stringify(failure(code, message, requestId));
  const status = ERROR_STATUS[code];
  socket.end(
    `HTTP/1.1 ${status} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `Cache-Control: ${NO_STORE}\r\n${BASE_LINES}` +
      `X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
  );
}
