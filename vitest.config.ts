import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'server/**/*.test.ts', 'tests/**/*.test.ts'],
    // Real-VM tests run in their own stage (vitest.vm.config.ts), one VM at a time.
    exclude: [...configDefaults.exclude, '**/*.vm.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    // On CI (a loaded 2-core machine running three stages at once) a test that fails is run
    // once more before it counts as failed; the JSON report still lists the retry, and a
    // test that fails twice fails the suite. Locally a failure is a failure at once.
    retry: process.env.CI ? 1 : 0,
    hookTimeout: 120_000,
    pool: 'forks',
    maxConcurrency: 6,
  },
});
