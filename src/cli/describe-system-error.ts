/** What to do about an error from the operating system or a backing service, by its code. */
const HINTS: Record<string, string> = {
  EACCES: 'check the permissions of MMDS_DATA_DIR and of the paths given',
  EPERM: 'check the permissions of MMDS_DATA_DIR and of the paths given',
  EROFS: 'the file system is read-only: point MMDS_DATA_DIR (or --out) at a writable directory',
  ENOSPC: 'the disk is full: free some space or point MMDS_DATA_DIR (or --out) elsewhere',
  EEXIST: 'a file stands where a directory is needed: check MMDS_DATA_DIR and --out',
  ENOTDIR: 'a file stands where a directory is needed: check MMDS_DATA_DIR and --out',
  ENOENT: 'a path does not exist: check MMDS_DATA_DIR and the paths given',
  EADDRINUSE: 'the port is taken: stop the other server or choose another with --port or PORT',
  EADDRNOTAVAIL: 'this machine has no such address: check --host or HOST',
  ECONNREFUSED: 'the state storage is unreachable: start Redis or fix MMDS_STORAGE',
  ENOTFOUND: 'the host name does not resolve: check MMDS_STORAGE',
};

/** DuckDB's "IO Error" carries the operating system's text but no code: the texts it may carry. */
const DUCKDB_IO_TEXTS: ReadonlyArray<readonly [RegExp, string]> = [
  [/No space left on device/i, 'ENOSPC'],
  [/Read-only file system/i, 'EROFS'],
  [/Permission denied/i, 'EACCES'],
];

function readDuckDbIoCode(message: string): string | undefined {
  if (!message.startsWith('IO Error:')) return undefined;
  return DUCKDB_IO_TEXTS.find(([text]) => text.test(message))?.[1];
}

/** Codes that mean a service we depend on did not answer (exit 69 rather than 1). */
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND']);

/**
 * Turns an error of the environment (a file system refusal, a taken port, Redis down) into one
 * line saying what to do, or null when the error is not one of those and so is ours to fix.
 */
export function describeSystemError(error: unknown): string | null {
  if (!(error instanceof Error)) return null;
  // ioredis gives up with its own error class once its retries against a dead server are spent.
  if (error.name === 'MaxRetriesPerRequestError') return `could not reach Redis: ${HINTS.ECONNREFUSED}`;
  const code = (error as NodeJS.ErrnoException).code ?? readDuckDbIoCode(error.message);
  const hint = code === undefined ? undefined : HINTS[code];
  return hint === undefined ? null : `${error.message}: ${hint}`;
}

/** Whether an error of the environment is a service we depend on not answering (exit 69). */
export function isServiceUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'MaxRetriesPerRequestError') return true;
  return UNAVAILABLE_CODES.has((error as NodeJS.ErrnoException).code ?? '');
}
