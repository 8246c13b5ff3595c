import { basename } from 'node:path';
import { type DownloadOptions, type DownloadRequest, downloadFile } from './download.ts';
import type { FetchedFile } from './types.ts';
import { unzipFetchedFile } from './unzip.ts';

/** Resolves a path under a publisher root (official or mirror), which may lack its trailing slash. */
export function resolvePublisherUrl(baseUrl: string, path: string): string {
  const root = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
  return new URL(path.replace(/^\/+/, ''), root).toString();
}

/** What fetching one publisher file found: its files (a zip already unpacked), or why none. */
export type PublisherFileResult =
  | { status: 'downloaded'; url: string; files: FetchedFile[] }
  | { status: 'not_modified'; url: string }
  | { status: 'not_found'; url: string; httpStatus: number };

/** One file under a publisher root. */
export interface PublisherFileOptions {
  /** Path under `request.baseUrl`, e.g. `files/dea/history/deacot2025.zip`. */
  path: string;
  expect: DownloadOptions['expect'];
  sleep?: DownloadOptions['sleep'];
  /** False to ignore the validators in the state (a companion file must be re-read in full). */
  conditional?: boolean;
}

/**
 * Downloads one file under the publisher root into the work directory and, for a zip, unpacks
 * every member; the shared step of the file fetchers (CFTC, ECB, reference lists).
 */
export async function fetchPublisherFile(
  request: DownloadRequest & { baseUrl: string },
  options: PublisherFileOptions,
): Promise<PublisherFileResult> {
  const url = resolvePublisherUrl(request.baseUrl, options.path);
  request.progress(`downloading ${url}…`);
  const download: DownloadOptions = { url, dest: basename(options.path), expect: options.expect };
  if (options.sleep) download.sleep = options.sleep;
  if (options.conditional !== undefined) download.conditional = options.conditional;
  const result = await downloadFile(request, download);
  if (result.status === 'not_modified') return { status: 'not_modified', url };
  if (result.status === 'not_found') return result;
  const { status: _status, ...file } = result;
  const files = options.expect === 'zip' ? unzipFetchedFile(file, request.workDir) : [file];
  return { status: 'downloaded', url, files };
}
