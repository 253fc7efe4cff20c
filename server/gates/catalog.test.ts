import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BUILTIN_CATALOG, GateCatalogInvalid, loadCatalog, parseGate } from './catalog.js';

describe('gate catalog', () => {
  let dir = "";
  afterEach(() => {
    if (dir !== "") rmSync(dir, { recursive: true, force: true });
  });

  it('ships tests, build and strict, all valid', () => {
    const gates = loadCatalog([BUILTIN_CATALOG]);
    expect([...gates.keys()].sort()).toEqual(['build', 'strict', 'tests']);
    expect(gates.get('strict')?.requiredSignals).toEqual(['build', 'tests', 'trace', 'policy']);
    expect(gates.get('tests')?.retry).toEqual({ maxAttempts: 3, retryable: ['build', 'tests'], timeoutRetryable: false });
  });

  it('names file, line and reason for an unknown key', () => {
    const text = 'id: x\ndescription: d\nrequiredSignals: [tests]\nspec:\n  phases:\n    - name: t\n      argv: [true]\n      shell: yes\n';
    expect(() => parseGate('x.yaml', text)).toThrow(new GateCatalogInvalid('x.yaml', 6, "spec.phases.0: must NOT have additional properties 'shell'"));
  });

  it('names the line of a wrong value and of broken YAML', () => {
    const wrong = 'id: x\ndescription: d\nrequiredSignals: [tests, vibes]\nspec:\n  phases: [{ name: t, argv: [true] }]\n';
    expect(() => parseGate('w.yaml', wrong)).toThrow(/^w\.yaml:3: requiredSignals\.1: must be equal to one of the allowed values/);
    expect(() => parseGate('b.yaml', 'id: x\n  bad: [\n')).toThrow(/^b\.yaml:1: YAML: Nested mappings are not allowed/);
  });

  it('one invalid file stops the whole load before any gate is returned', () => {
    dir = mkdtempSync(join(tmpdir(), 'airlock-catalog-'));
    writeFileSync(join(dir, 'ok.yaml'), 'id: ok\ndescription: d\nrequiredSignals: [tests]\nspec:\n  phases: [{ name: t, argv: ["true"] }]\n');
    writeFileSync(join(dir, 'zz.yaml'), 'id: zz\ndescription: d\nrequiredSignals: []\nspec:\n  phases: [{ name: t, argv: ["true"] }]\n');
    expect(() => loadCatalog([BUILTIN_CATALOG, dir])).toThrow(/zz\.yaml:3: requiredSignals: must NOT have fewer than 1 items/);
  });

  it('requires the id to match the file name', () => {
    dir = mkdtempSync(join(tmpdir(), 'airlock-catalog-'));
    writeFileSync(join(dir, 'a.yaml'), 'id: b\ndescription: d\nrequiredSignals: [tests]\nspec:\n  phases: [{ name: t, argv: ["true"] }]\n');
    expect(() => loadCatalog([dir])).toThrow(/a\.yaml:1: id 'b' must match the file name 'a'/);
  });
});
