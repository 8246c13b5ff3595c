import type { Writable } from 'node:stream';
import type { Config } from '../config/load-config.ts';
import { isRedisUrl } from '../lib/redis-url.ts';

/**
 * Without MMDS_KEY_PEPPER the webhook signing secrets lie in the state storage as they are
 * (src/hooks/secret-seal.ts): documented, but easy to miss, so the commands that store or use
 * them say so (issue 37). Once per output stream: in a process that is once, since every
 * command writes to the same process.stderr (`npm start` runs several before `serve`), while
 * each in-process test run has a stream of its own.
 */
const warned = new WeakSet<Writable>();

/** Warns once on stderr that webhook secrets are stored unsealed, when no pepper is set. */
export function warnUnsealedSecrets(config: Pick<Config, 'keyPepper' | 'storage'>, stderr: Writable): void {
  // A memory storage keeps nothing at rest: there is nothing a copy could reveal.
  if (config.keyPepper !== null || config.storage === 'memory' || warned.has(stderr)) return;
  warned.add(stderr);
  const where = isRedisUrl(config.storage) ? 'in Redis' : 'in files under the data directory';
  stderr.write(
    `warning: MMDS_KEY_PEPPER is not set: webhook signing secrets are stored unsealed ${where}, readable by anyone who can read a copy; set it to seal them (docs/webhooks.md)\n`,
  );
}
