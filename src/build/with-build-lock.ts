import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Runs `fn` holding a lock file, waiting for other holders. Astro writes its intermediate
 * bundle to one shared directory of the project (`.astro/`), so two builds from the same
 * checkout (two operators, parallel tests) would overwrite each other's chunks; they take
 * turns instead. A lock left by a dead process is taken over.
 */
export async function withBuildLock<T>(
  lockFile: string,
  fn: () => Promise<T>,
  timeoutMs = 600_000,
): Promise<T> {
  mkdirSync(dirname(lockFile), { recursive: true });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const fd = openSync(lockFile, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (!isHeldByLiveProcess(lockFile)) {
        rmSync(lockFile, { force: true });
        continue;
      }
      if (Date.now() > deadline)
        throw new Error(`another mmds build holds ${lockFile}; try again when it has finished`);
      await sleep(200);
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lockFile, { force: true });
  }
}

function isHeldByLiveProcess(lockFile: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(lockFile, 'utf8').trim());
  } catch {
    return true;
  }
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
