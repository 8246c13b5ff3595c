import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { unzipSync } from 'fflate';
import { findSource, SOURCES } from '../../ingest/sources.ts';
import type { CommandContext } from '../context.ts';
import { UsageError } from '../usage-error.ts';
import { ingestFiles, reportIngest } from './ingest.ts';

const DOWNLOAD_TIMEOUT_MS = 120_000;

/** Downloads one file; a `.zip` is unpacked to its single member. Returns the local path. */
async function download(url: string, dir: string): Promise<string> {
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS), redirect: 'follow' });
  } catch (error) {
    throw new UsageError(
      `${url}: download failed (${(error as Error).message}); check --base-url and the network`,
    );
  }
  if (!response.ok)
    throw new UsageError(`${url}: HTTP ${response.status}; check --base-url, or try again later`);
  const body = new Uint8Array(await response.arrayBuffer());
  const name = decodeURIComponent(new URL(url).pathname.split('/').pop() || 'download');
  if (!name.toLowerCase().endsWith('.zip')) {
    const path = join(dir, name);
    writeFileSync(path, body);
    return path;
  }
  const members = Object.entries(unzipSync(body)).filter(([member]) => !member.endsWith('/'));
  if (members.length !== 1)
    throw new UsageError(`${url}: expected one file in the zip, found ${members.length}`);
  const [member, content] = members[0]!;
  const path = join(dir, member.split('/').pop()!);
  writeFileSync(path, content);
  return path;
}

/** Registers `mmds fetch`. */
export function registerFetch(program: Command, getContext: () => CommandContext): void {
  const fetchable = SOURCES.filter((s) => s.fetch).map((s) => s.id);
  program
    .command('fetch')
    .description("download a source's current files from the publisher, then ingest them")
    .argument('<source>', `one of: ${fetchable.join(', ')}`)
    .option('--base-url <url>', "the publisher's address (default: the official one)")
    .addHelpText(
      'after',
      `
Downloads the source's files into a temporary directory under MMDS_DATA_DIR (a .zip is unpacked
to its single member), ingests them exactly as mmds ingest would, and removes the download.
Prints the same summary as mmds ingest. Run mmds publish afterwards.

Files fetched:
${fetchable.map((id) => `  ${id.padEnd(8)} ${findSource(id)!.fetch!.files.join(', ')}`).join('\n')}

Examples:
  mmds fetch ecb
  mmds fetch cftc && mmds publish
  mmds fetch ecb --base-url http://mirror.internal/ecb/ --json`,
    )
    .action(async (id: string, flags: { baseUrl?: string }) => {
      const context = getContext();
      const source = findSource(id);
      if (!source?.fetch)
        throw new UsageError(`cannot fetch "${id}"; fetchable sources: ${fetchable.join(', ')}`);
      const base = flags.baseUrl ?? source.fetch.defaultBaseUrl;
      if (!/^https?:\/\//.test(base))
        throw new UsageError(`--base-url must be an http(s) URL, got "${base}"`);
      mkdirSync(context.config.dataDir, { recursive: true });
      const dir = mkdtempSync(join(context.config.dataDir, '.download-'));
      try {
        const files: string[] = [];
        for (const [index, file] of source.fetch.files.entries()) {
          const url = new URL(file, base.endsWith('/') ? base : `${base}/`).toString();
          context.reporter.progress(`downloading ${url}…`, { done: index, total: source.fetch.files.length });
          files.push(await download(url, dir));
        }
        reportIngest(
          context,
          source.id,
          await ingestFiles(context, { source: source.id, files, options: {} }),
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
}
