import { FetchError, MIRROR_SETTING } from './fetch-error.ts';
import { assertReadableZip } from './zip-archive.ts';

/** What a download must contain. */
export type ExpectedContent = 'zip' | 'gzip' | 'text' | 'json' | 'xml';

const HTML_START = /^\s*(<!doctype\s+html|<html[\s>])/i;

function htmlPage(url: string, expect: ExpectedContent, how: string): FetchError {
  return new FetchError(
    url,
    `the publisher answered with an HTML page (${how}) where a ${expect} file was expected, usually an error or maintenance page; check the base URL (${MIRROR_SETTING}) and the file name, or try again later`,
    { kind: 'html' },
  );
}

/**
 * Refuses a response that is not what was asked for: an HTML page (by Content-Type before the
 * body is read, or by its first bytes after), or a zip that is not a complete archive.
 */
export function assertExpectedContent(
  url: string,
  expect: ExpectedContent,
  contentType: string | null,
  bytes: Uint8Array | null,
): void {
  if (contentType !== null && /^\s*text\/html\b/i.test(contentType)) {
    throw htmlPage(url, expect, `Content-Type ${contentType.split(';')[0]}`);
  }
  if (bytes === null) return;
  // Only the head is decoded: enough to recognise an HTML page without copying a large file.
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 512)).toString('utf8');
  if (HTML_START.test(head.replace(/^\uFEFF/, ''))) throw htmlPage(url, expect, 'it begins with <html>');
  if (expect === 'zip') assertReadableZip(bytes, url);
  if (expect === 'gzip' && !(bytes[0] === 0x1f && bytes[1] === 0x8b)) {
    throw new FetchError(
      url,
      `the download is not a gzip archive; check that the base URL (${MIRROR_SETTING}) points at the publisher or a faithful mirror`,
      {
        kind: 'bad_content',
      },
    );
  }
}
