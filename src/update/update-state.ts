import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { writeFileAtomic } from '../lib/durable-fs.ts';

/** What `mmds update` remembers of each source between runs (`<data dir>/update-state.json`). */
export interface UpdateState {
  sources: Record<string, SourceState>;
}

/** One source's last runs. */
export interface SourceState {
  last_attempt: string | null;
  /** When a fetch of it last completed (new data or not). */
  last_success: string | null;
  /** The one-line error of the last failed attempt; null after a success. */
  last_error: string | null;
}

/** The file name under the data directory. */
export const UPDATE_STATE_FILE = 'update-state.json';

/** Reads the update state; a missing file is an empty state. */
export function readUpdateState(file: string): UpdateState {
  if (!existsSync(file)) return { sources: {} };
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<UpdateState>;
  return { sources: { ...(parsed.sources ?? {}) } };
}

/** Records one source's attempt and writes the state durably. */
export function recordAttempt(
  file: string,
  state: UpdateState,
  source: string,
  at: string,
  error: string | null,
): void {
  const previous = state.sources[source];
  state.sources[source] = {
    last_attempt: at,
    last_success: error === null ? at : (previous?.last_success ?? null),
    last_error: error,
  };
  mkdirSync(dirname(file), { recursive: true });
  writeFileAtomic(file, `${JSON.stringify(state, null, 2)}\n`);
}
