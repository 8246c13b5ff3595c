import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { hashFile } from './write-parquet.ts';

/** The worker: hashes the files it is sent, one at a time, and answers with the digest. */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const { createReadStream } = require('node:fs');
parentPort.on('message', async ({ id, file }) => {
  try {
    const hash = createHash('sha256');
    for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) hash.update(chunk);
    parentPort.postMessage({ id, sha256: hash.digest('hex') });
  } catch (error) {
    parentPort.postMessage({ id, error: String(error && error.message || error) });
  }
});
`;

/**
 * SHA-256 of several files, on worker threads (one per core, at most four): hashing is
 * CPU-bound, and a snapshot of 100 million revisions is about 2.4 GB of Parquet that the
 * server hashes before it serves it. One file, or one core, is hashed in this thread.
 */
export async function hashFiles(files: readonly string[]): Promise<string[]> {
  const workers = Math.min(4, availableParallelism(), files.length);
  if (workers <= 1) {
    const digests: string[] = [];
    for (const file of files) digests.push(await hashFile(file));
    return digests;
  }
  const digests: string[] = new Array(files.length);
  let next = 0;
  const pool = Array.from({ length: workers }, () => new Worker(WORKER_SOURCE, { eval: true }));
  try {
    await Promise.all(
      pool.map(
        (worker) =>
          new Promise<void>((resolve, reject) => {
            const send = () => {
              if (next >= files.length) return resolve();
              const id = next++;
              worker.postMessage({ id, file: files[id] });
            };
            worker.on('message', (reply: { id: number; sha256?: string; error?: string }) => {
              if (reply.error !== undefined) return reject(new Error(`${files[reply.id]}: ${reply.error}`));
              digests[reply.id] = reply.sha256!;
              send();
            });
            worker.on('error', reject);
            send();
          }),
      ),
    );
  } finally {
    await Promise.all(pool.map((worker) => worker.terminate()));
  }
  return digests;
}
