import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { MmdsError } from '../lib/errors.ts';

/** Another pipeline command holds the data directory. */
export class LockedError extends MmdsError {
  constructor(lockFile: string, pid: string) {
    super('locked', `the data directory is in use by process ${pid} (${lockFile}); wait for it to finish`);
    this.name = 'LockedError';
  }
}

/**
 * Takes the data directory's lock for the duration of `fn`, so that two ingests or publishes
 * never interleave. A lock left by a dead process is taken over.
 */
export async function withStoreLock<T>(lockFile: string, fn: () => Promise<T>): Promise<T> {
  mkdirSync(dirname(lockFile), { recursive: true });
  acquire(lockFile);
  try {
    return await fn();
  } finally {
    rmSync(lockFile, { force: true });
  }
}

/**
 * Takes a short-held lock (a file created only if absent) for a synchronous step, waiting up to
 * `waitMs` for another process to let go of it: for steps of milliseconds that other processes
 * must not interleave with, where failing at once (as withStoreLock does) would be wrong.
 */
export async function withShortLock<T>(lockFile: string, fn: () => T, waitMs = 10_000): Promise<T> {
  mkdirSync(dirname(lockFile), { recursive: true });
  for (const deadline = Date.now() + waitMs; ; ) {
    try {
      acquire(lockFile);
      break;
    } catch (error) {
      if (!(error instanceof LockedError) || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
  try {
    return fn();
  } finally {
    rmSync(lockFile, { force: true });
  }
}

function acquire(lockFile: string): void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockFile, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = readFileSync(lockFile, 'utf8').trim();
      if (isAlive(Number(holder))) throw new LockedError(lockFile, holder);
      rmSync(lockFile, { force: true });
    }
  }
  throw new LockedError(lockFile, 'unknown');
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
