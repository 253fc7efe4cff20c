import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'server/**/*.test.ts', 'tests/**/*.test.ts'],
    // Real-VM tests run in their own stage (vitest.vm.config.ts), one VM at a time.
    exclude: [...configDefaults.exclude, '**/*.vm.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxConcurrency: 6,
  },
});
