import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseSandboxSpec, canonicalHash } from './spec.js';
import { SandboxSpecError } from './errors.js';
import { blake3Hex } from '../../src/host/audit/hash.js';

const minimal = { phases: [{ name: 'test', argv: ['true'] }] };

describe('parseSandboxSpec', () => {
  it('fills defaults, hashes and deeply freezes', () => {
    const spec = parseSandboxSpec(minimal);
    expect(spec.network).toBe('none');
    expect(spec.image).toBe('default');
    expect(spec.timeBudgetSeconds).toBe(600);
    expect(spec.specHash).toMatch(/^[0-9a-f]{64}$/);
    expect(Object.isFrozen(spec)).toBe(true);
    expect(Object.isFrozen(spec.phases[0]?.argv)).toBe(true);
    expect(() => {
      (spec.phases as unknown as unknown[]).push({});
    }).toThrow(TypeError);
  });

  it('refuses unknown keys, at the top and nested', () => {
    expect(() => parseSandboxSpec({ ...minimal, colour: 'red' })).toThrow(/must NOT have additional properties 'colour'/);
    expect(() => parseSandboxSpec({ phases: [{ name: 'x', argv: ['true'], shell: true }] })).toThrow(/spec\.phases\.0: .*'shell'/);
  });

  it('refuses environment names off the allowlist, and accepts prefixed ones', () => {
    expect(() => parseSandboxSpec({ ...minimal, env: { AWS_SECRET_ACCESS_KEY: 'x' } })).toThrow(/spec\.env\.AWS_SECRET_ACCESS_KEY: not on the environment allowlist/);
    expect(parseSandboxSpec({ ...minimal, env: { npm_config_offline: 'true', CI: '1' } }).env.CI).toBe('1');
  });

  it("refuses '..' in guest paths and scoped phases in a network-none spec", () => {
    expect(() => parseSandboxSpec({ ...minimal, copyOut: ['/work/../etc'] })).toThrow(SandboxSpecError);
    expect(() => parseSandboxSpec({ phases: [{ name: 'i', argv: ['npm', 'ci'], network: 'scoped' }] })).toThrow(/needs the spec's network to be 'scoped'/);
  });

  it('refuses limits past GATE_LIMITS, naming the field', () => {
    expect(() => parseSandboxSpec({ ...minimal, memoryLimitMiB: 1_000_000 })).toThrow(/spec\.memoryLimitMiB: must be <= 16384/);
    expect(() => parseSandboxSpec({ ...minimal, timeBudgetSeconds: 0 })).toThrow(/spec\.timeBudgetSeconds/);
  });

  it('checks a given specHash', () => {
    const spec = parseSandboxSpec(minimal);
    expect(parseSandboxSpec({ ...minimal, specHash: spec.specHash }).specHash).toBe(spec.specHash);
    expect(() => parseSandboxSpec({ ...minimal, specHash: '00' })).toThrow(/does not match/);
  });

  it('hash is invariant under key order and changes with content (property)', () => {
    const envArb = fc.dictionary(fc.constantFrom('CI', 'NODE_ENV', 'LANG', 'TZ', 'npm_config_x', 'AIRLOCK_GATE_N'), fc.string({ maxLength: 8 }));
    fc.assert(
      fc.property(envArb, fc.array(fc.string({ minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 4 }), (env, argv) => {
        const a = parseSandboxSpec({ env, phases: [{ name: 'p', argv }], label: 'l' });
        const reversedEnv = Object.fromEntries(Object.entries(env).reverse());
        const b = parseSandboxSpec({ label: 'l', phases: [{ argv, name: 'p' }], env: reversedEnv });
        expect(b.specHash).toBe(a.specHash);
        const c = parseSandboxSpec({ env, phases: [{ name: 'p', argv: [...argv, 'x'] }], label: 'l' });
        expect(c.specHash).not.toBe(a.specHash);
      }),
    );
  });

  it('canonicalHash is BLAKE3 of RFC 8785 JSON', () => {
    // The BLAKE3 test vector for "abc" (from the BLAKE3 reference), then the canonical text.
    expect(blake3Hex('abc')).toBe('6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85');
    expect(canonicalHash({ b: 2, a: 1 })).toBe(blake3Hex('{"a":1,"b":2}'));
  });
});
