import type { Duplex } from 'node:stream';
import { ApiError } from '../contract/errors.ts';
import { rawHttpAnswer, renderError } from '../contract/render-error.ts';
import { createRequestId } from './request-id.ts';

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
  socket.end(rawHttpAnswer(renderError(new ApiError(code, message), { kind: 'raw-socket', requestId })));
}
