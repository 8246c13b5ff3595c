import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { FetchError } from '../../../src/fetch/fetch-error.ts';
import { createEmptyFetchState } from '../../../src/fetch/fetch-state.ts';
import { createHttpOptions } from '../../../src/fetch/http-options.ts';
import type { FetchRequest, FetchState, HttpOptions } from '../../../src/fetch/types.ts';

/** A FetchRequest for tests: tiny back-off and time-outs, a fixed clock, progress collected. */
export function createTestRequest(options: {
  baseUrl: string;
  workDir: string;
  state?: FetchState;
  now?: Date;
  http?: Partial<HttpOptions>;
}): FetchRequest & { lines: string[] } {
  const lines: string[] = [];
  // The caller of a fetcher hands it an existing, fresh work directory.
  mkdirSync(options.workDir, { recursive: true });
  const now = options.now ?? new Date('2026-03-20T12:00:00Z');
  return {
    baseUrl: options.baseUrl,
    workDir: options.workDir,
    state: options.state ?? createEmptyFetchState(),
    now: () => now,
    http: createHttpOptions({ retries: 2, backoffMs: 1, timeoutMs: 2_000, ...options.http }),
    progress: (line) => lines.push(line),
    lines,
  };
}

/** Every file under a directory, recursively, relative to it (hidden temporaries included). */
export function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
    .sort();
}

/** A sleeper that records the delays asked for and returns at once. */
export function createRecordingSleep(): { sleep: (ms: number) => Promise<void>; delays: number[] } {
  const delays: number[] = [];
  return { sleep: async (ms) => void delays.push(ms), delays };
}

/** Awaits a fetch that must fail and returns its FetchError. */
export async function expectFetchError(promise: Promise<unknown>): Promise<FetchError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(FetchError);
  return error as FetchError;
}
