// The real-VM tests (*.vm.test.ts): the `vm` stage of npm test, after the guest image is
// built. One file and one VM at a time: QEMU under TCG takes a whole core.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['server/**/*.vm.test.ts'],
    environment: 'node',
    testTimeout: 600_000,
    hookTimeout: 600_000,
    pool: 'forks',
    fileParallelism: false,
    maxConcurrency: 1,
  },
});
