import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The long reliability suite runs on its own: npm run test:reliability (vitest.reliability.config.ts).
    exclude: [...configDefaults.exclude, 'test/reliability-long/**'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
