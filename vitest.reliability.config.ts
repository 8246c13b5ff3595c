import { configDefaults, defineConfig } from 'vitest/config';
import { digestInputs, RUN_INPUTS_VARIABLE } from './test/helpers/sample-inputs.ts';
import { missingPrerequisites } from './test/helpers/test-prerequisites.ts';

/**
 * `npm run test:reliability`: the long reliability suite (10,000 hostile requests, 1,000 as_of
 * cases over HTTP, the rate-limit soak) and the property tests at 1,000 runs. Results and how to
 * read them: RELIABILITY.md. Files whose prerequisites are missing are left out, as in vitest.config.ts.
 */
const missing = missingPrerequisites();
for (const notice of missing.notices) console.warn(notice);

// The shared sample build's key, taken once as the run starts (test/helpers/shared-sample-build.ts):
// vitest transforms src/ once per run, so a build made after an edit during the run must not be
// filed under the edited inputs.
process.env[RUN_INPUTS_VARIABLE] ??= digestInputs();

export default defineConfig({
  test: {
    include: ['test/reliability-long/**/*.test.ts', 'test/property/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...missing.exclude],
    passWithNoTests: missing.notices.length > 0,
    env: { MMDS_PROPERTY_RUNS: '1000' },
    testTimeout: 900_000,
    hookTimeout: 300_000,
    pool: 'forks',
  },
});
