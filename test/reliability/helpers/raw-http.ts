import { createConnection, type Socket } from 'node:net';

/** What came back on a raw connection: a parsed HTTP/1.1 response, or how the connection ended. */
export interface RawResponse {
  /** Null when the server closed the connection without a parsable response. */
  status: number | null;
  /** Header names in lowercase. */
  headers: Record<string, string>;
  body: string;
  /** How the exchange ended: the server closed it, reset it, or we gave up waiting. */
  ending: 'closed' | 'reset' | 'timeout';
  /** Milliseconds from connect to the end. */
  ms: number;
}

/**
 * Sends bytes exactly as given (fetch refuses NUL, raw backslashes and unencoded `..`) on a new
 * connection and reads until the server closes it. Send `Connection: close` to get one response.
 */
export function sendRaw(port: number, request: string | Buffer, timeoutMs = 5_000): Promise<RawResponse> {
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = createConnection({ port, host: '127.0.0.1' });
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (ending: RawResponse['ending']) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ ...parseResponse(Buffer.concat(chunks)), ending, ms: performance.now() - started });
    };
    const timer = setTimeout(() => finish('timeout'), timeoutMs);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('end', () => finish('closed'));
    socket.on('close', () => finish('closed'));
    socket.on('error', () => finish('reset'));
    socket.on('connect', () => socket.write(request));
  });
}

/** Opens a connection and returns it once connected (for trickling bytes by hand). */
export function openRaw(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** A GET request line and headers as raw bytes, ending the connection after the response. */
export function rawGet(target: string | Buffer, headers: Record<string, string> = {}): Buffer {
  const lines = Object.entries({ Host: '127.0.0.1', Connection: 'close', ...headers })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return Buffer.concat([
    Buffer.from('GET ', 'latin1'),
    typeof target === 'string' ? Buffer.from(target, 'latin1') : target,
    Buffer.from(` HTTP/1.1\r\n${lines}\r\n`, 'latin1'),
  ]);
}

/** Parses the first HTTP/1.1 response of a byte stream (Content-Length bodies; we never ask for chunked). */
export function parseResponse(bytes: Buffer): Pick<RawResponse, 'status' | 'headers' | 'body'> {
  const text = bytes.toString('latin1');
  const end = text.indexOf('\r\n\r\n');
  const statusLine = /^HTTP\/1\.[01] (\d{3})/.exec(text);
  if (end < 0 || !statusLine) return { status: null, headers: {}, body: text };
  const headers: Record<string, string> = {};
  for (const line of text.slice(0, end).split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = headers['content-length'];
  const rawBody = bytes.subarray(Buffer.byteLength(text.slice(0, end + 4), 'latin1'));
  const body = (length === undefined ? rawBody : rawBody.subarray(0, Number(length))).toString('utf8');
  return { status: Number(statusLine[1]), headers, body };
}
