import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';
import { digestInputs, RUN_INPUTS_VARIABLE } from './test/helpers/sample-inputs.ts';
import { missingPrerequisites } from './test/helpers/test-prerequisites.ts';

// Without ../shared/data (the publishers' real files), redis-server or chromium, the test files that
// need them are left out, and the run says so in one line each (test/helpers/test-prerequisites.ts).
const missing = missingPrerequisites();
for (const notice of missing.notices) console.warn(notice);

// The shared sample build's key, taken once as the run starts (test/helpers/shared-sample-build.ts):
// vitest transforms src/ once per run, so a build made after an edit during the run must not be
// filed under the edited inputs.
process.env[RUN_INPUTS_VARIABLE] ??= digestInputs();

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The long reliability suite runs on its own: npm run test:reliability (vitest.reliability.config.ts).
    exclude: [...configDefaults.exclude, 'test/reliability-long/**', ...missing.exclude],
    // A run of only such files is then empty: it passes, after those lines.
    passWithNoTests: missing.notices.length > 0,
    // Generous: the machines are shared and a loaded one runs a build or a 1,300-request sweep
    // several times slower (a CI run timed out at 60 s); a hang still fails.
    testTimeout: 180_000,
    // A set-up may wait for the snapshot of every real publisher file, made once per run by
    // whichever file asks first (minutes on a fresh clone), before its own build.
    hookTimeout: 600_000,
    pool: 'forks',
    // Vitest's default for a run is one worker fewer than the cores: a single worker on the
    // two-core machines here, so the files ran one after another. Most of them wait on child
    // processes, servers and disk, so every core gets a worker.
    maxWorkers: availableParallelism(),
  },
});
