import { defineConfig } from 'vitest/config';

/**
 * `npm run test:reliability`: the long reliability suite (10,000 hostile requests, 1,000 as_of
 * cases over HTTP, the rate-limit soak) and the property tests at 1,000 runs. Results and how to
 * read them: RELIABILITY.md.
 */
export default defineConfig({
  test: {
    include: ['test/reliability-long/**/*.test.ts', 'test/property/**/*.test.ts'],
    env: { MMDS_PROPERTY_RUNS: '1000' },
    testTimeout: 900_000,
    hookTimeout: 300_000,
    pool: 'forks',
  },
});
