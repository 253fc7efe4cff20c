import { describe, expect, it } from 'vitest';
import { createTestKernel, probeSpec } from '../../../../tests/helpers/test-kernel.js';

describe('a deferred module (sent after init)', () => {
  it('installs its tools at init; a run started before it arrives waits, then runs', async () => {
    const t = createTestKernel({ deferProbe: true });
    expect(t.kernel.programs.has('probe')).toBe(true);
    let ended = false;
    const early = t.run(['probe', 'echo', 'waited']).then((result) => {
      ended = true;
      return result;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(ended).toBe(false);
    t.kernel.provideModules({ modules: [probeSpec()] });
    const result = await early;
    expect(result.exitCode).toBe(0);
    expect(result.out).toBe('waited\n');
    // Later runs get the module itself.
    expect((await t.run(['probe', 'spawn', 'probe', 'exit', '3'])).out).toBe('status 3\n');
  });

  it('a module that cannot be had fails its runs with the reason', async () => {
    const t = createTestKernel({ deferProbe: true });
    const early = t.run(['probe', 'echo', 'never']);
    t.kernel.provideModules({ failed: 'HTTP 404' });
    const result = await early;
    expect(result.exitCode).toBe(126);
    expect(result.err).toBe('probe: the probe module could not be loaded: HTTP 404\n');
    expect((await t.run(['probe', 'echo', 'again'])).exitCode).toBe(126);
  });

  it('refuses a module init did not name as deferred', () => {
    const t = createTestKernel({ deferProbe: true });
    expect(() => t.kernel.provideModules({ modules: [{ ...probeSpec(), name: 'other' }] })).toThrow('module other: init did not name it as deferred');
  });
});
