import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { withBuildLock } from '../../src/build/with-build-lock.ts';
import { digestInputs } from './sample-inputs.ts';

/**
 * A directory made once per key and kept under node_modules/.cache/ for the test files and runs
 * after: the shared sample build (shared-sample-build.ts) and the snapshot of every real publisher
 * file (snapshot-fixture.ts). The key is a digest of everything the directory is made from; the
 * entry is made under a lock across the test processes, in place, and marked complete last (a
 * half-made one, its maker killed, is made again). Users copy what they write to.
 */

/** Where an entry was made, and what its maker said of it. */
export interface CachedEntry<Meta> {
  dir: string;
  meta: Meta;
}

export interface CachedFixtureOptions<Meta> {
  /** The cache folder of this kind of entry (entries are pruned per folder). */
  cache: string;
  /** 20 hex digits: the digest of the inputs the entry is made from. */
  key: string;
  /** The digest of the repository's inputs (sample-inputs.ts) when this process loaded them. */
  inputsAtLoad: string;
  /** Makes the entry in `dir` (empty, existing) and returns what to remember of it (JSON). */
  make(dir: string): Promise<Meta>;
}

const READY = 'ready.json';
/** Entries kept besides the one in use; older ones are removed. */
const KEEP = 4;
const pending = new Map<string, Promise<CachedEntry<unknown>>>();

/** The cached entry of `key`, made now if no test process has made it yet. */
export function cachedFixture<Meta>(options: CachedFixtureOptions<Meta>): Promise<CachedEntry<Meta>> {
  const id = join(options.cache, options.key);
  let entry = pending.get(id);
  if (!entry) {
    entry = makeOnce(options);
    pending.set(id, entry);
  }
  return entry as Promise<CachedEntry<Meta>>;
}

async function makeOnce<Meta>(options: CachedFixtureOptions<Meta>): Promise<CachedEntry<Meta>> {
  const { cache, key } = options;
  const dir = join(cache, key);
  mkdirSync(cache, { recursive: true });
  const read = (): CachedEntry<Meta> | null => {
    if (!existsSync(join(dir, READY))) return null;
    const meta = JSON.parse(readFileSync(join(dir, READY), 'utf8')) as Meta;
    const now = new Date();
    utimesSync(dir, now, now); // newest used: kept by the pruning
    return { dir, meta };
  };
  const ready = read();
  if (ready) return ready;
  return withBuildLock(join(cache, `${key}.lock`), async () => {
    const made = read();
    if (made) return made;
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir);
    const meta = await options.make(dir);
    // Inputs edited since this process loaded them: the entry may mix both states, so it serves
    // this process only, moved aside (removed once the process is gone); the next one makes it again.
    if (digestInputs() !== options.inputsAtLoad) {
      const aside = join(cache, `${key}.stale-${process.pid}`);
      rmSync(aside, { recursive: true, force: true });
      renameSync(dir, aside);
      return { dir: aside, meta };
    }
    writeFileSync(join(dir, READY), JSON.stringify(meta));
    prune(cache, key);
    return read()!;
  });
}

/** Removes all but the newest KEEP entries besides the current one, and stale ones of dead processes. */
function prune(cache: string, current: string): void {
  const entries = readdirSync(cache)
    .filter((name) => /^[0-9a-f]{20}$/.test(name) && name !== current)
    .map((name) => ({ name, mtime: statSync(join(cache, name)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime);
  for (const { name } of entries.slice(KEEP)) rmSync(join(cache, name), { recursive: true, force: true });
  for (const name of readdirSync(cache)) {
    const pid = Number(/\.stale-(\d+)$/.exec(name)?.[1]);
    if (pid && !isAlive(pid)) rmSync(join(cache, name), { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
