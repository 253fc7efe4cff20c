import { describe, expect, it } from 'vitest';
import { decide } from '../../../host/network/policy.js';
import { playgroundReason } from './reason.js';

describe('playgroundReason', () => {
  it('says where to turn the network on instead of naming the policy option', async () => {
    const decision = await decide(undefined, 'GET', new URL('https://example.com/'));
    expect(decision.allowed).toBe(false);
    const shown = playgroundReason(decision.allowed ? '' : decision.reason);
    expect(shown).toBe('network access is off for this sandbox; allow hosts in Settings → Network');
    expect(playgroundReason('whatever the host said', 'default')).toBe(shown);
  });

  it('replaces option names in the other refusals', async () => {
    const decision = await decide({ allowedHosts: ['example.com'] }, 'GET', new URL('https://other.test/'));
    const shown = playgroundReason(decision.allowed ? '' : decision.reason);
    expect(shown).toBe('other.test is not in the allowed hosts (Settings → Network)');
    expect(shown).not.toMatch(/network\.\w+/);
  });
});
