import { FetchError } from './fetch-error.ts';

/** The body of a response, read in full within a size cap. */
export interface ReadBody {
  bytes: Uint8Array;
}

function tooLarge(url: string, what: string, maxBytes: number): FetchError {
  return new FetchError(
    url,
    `${what} exceeds the ${maxBytes}-byte limit; if the file really is that large, raise the size limit`,
    { kind: 'too_large' },
  );
}

/**
 * Reads the whole body, refusing at once when the declared Content-Length is over the cap and
 * aborting when the bytes received pass it; a body shorter than its declared length is a
 * truncation (the connection broke), which the caller may retry.
 */
export async function readBody(
  response: Response,
  url: string,
  maxBytes: number,
  abort: () => void,
): Promise<ReadBody> {
  const declaredHeader = response.headers.get('content-length');
  // With a content coding the declared length counts the compressed bytes, not what we read.
  const encoding = (response.headers.get('content-encoding') ?? 'identity').toLowerCase();
  const declared = declaredHeader !== null && encoding === 'identity' ? Number(declaredHeader) : null;
  if (declared !== null && declared > maxBytes) {
    abort();
    throw tooLarge(url, `the declared size (${declared} bytes)`, maxBytes);
  }
  const chunks: Uint8Array[] = [];
  let received = 0;
  try {
    if (response.body !== null) {
      for await (const chunk of response.body) {
        received += chunk.length;
        if (received > maxBytes) {
          abort();
          throw tooLarge(url, `the body (more than ${received} bytes received)`, maxBytes);
        }
        chunks.push(chunk);
      }
    }
  } catch (error) {
    if (error instanceof FetchError) throw error;
    if (declared !== null && received < declared) throw truncated(url, received, declared, error);
    throw error;
  }
  if (declared !== null && received < declared) throw truncated(url, received, declared, null);
  return { bytes: Buffer.concat(chunks, received) };
}

function truncated(url: string, received: number, declared: number, cause: unknown): FetchError {
  return new FetchError(
    url,
    `the download was cut off after ${received} of ${declared} bytes`,
    cause === null ? { kind: 'truncated' } : { kind: 'truncated', cause },
  );
}
