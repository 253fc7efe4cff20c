// The interpreter's seal, tested from outside Python (a test hook, not sandbox code): an
// interpreter booted in this process is given JS objects on purpose — what a missed
// reference in the prelude's purge would leave — and must not be able to use them, or
// make new ones, once sealed. Each case ends its interpreter (a breach unwinds it), so each
// boots its own from one snapshot.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { bootPyodide, type BootedPyodide, type CreatePyodideModule, type PyodideAssets } from './pyodide-boot.js';
import { SealBreach } from './interpreter-seal.js';
import { neuterPyodide, PyodideEntryRefused } from './pyodide-neuter.js';

const TIMEOUT = 300_000;
let create: CreatePyodideModule;
let assets: PyodideAssets;

async function boot(): Promise<BootedPyodide> {
  return bootPyodide(create, assets, { makeSnapshot: false, print: () => undefined });
}

/**
 * In a fresh interpreter that has the JS module `probe`, runs `setup` (unsealed), then
 * seals it — unless `seal` is false — and calls the Python function `attempt()` that
 * `setup` defined, as the driver calls `main()` in production. A breach may reach this
 * caller as an exception or not at all (Pyodide ends the interpreter quietly):
 * `booted.seal.breach` is what tells.
 */
async function attempt(setup: string, seal = true): Promise<{ error: unknown; booted: BootedPyodide; touched: string[] }> {
  const booted = await boot();
  const touched: string[] = [];
  booted.pyodide.registerJsModule('probe', {
    touch: (what: string) => touched.push(String(what)),
    object: { nested: { deeper: 1 } },
  });
  booted.pyodide.runPython(setup);
  const run = booted.pyodide.globals.get('attempt') as () => unknown;
  if (seal) booted.seal.seal();
  let error: unknown;
  try {
    run();
  } catch (caught) {
    error = caught;
  }
  return { error, booted, touched };
}

beforeAll(async () => {
  const dir = dirname(createRequire(import.meta.url).resolve('pyodide/package.json'));
  create = ((await import(pathToFileURL(join(dir, 'pyodide.asm.mjs')).href)) as { default: CreatePyodideModule }).default;
  const module = await WebAssembly.compile(readFileSync(join(dir, 'pyodide.asm.wasm')));
  const stdlib = new Uint8Array(readFileSync(join(dir, 'python_stdlib.zip')));
  const first = await bootPyodide(create, { module, stdlib }, { makeSnapshot: true, print: () => undefined });
  assets = { module, stdlib, snapshot: first.pyodide.makeMemorySnapshot() };
}, TIMEOUT);

describe('the interpreter seal', { timeout: TIMEOUT }, () => {
  it('lets Python use a JS object it holds before the seal (the hook works)', async () => {
    const { error, touched } = await attempt('import probe\ndef attempt():\n    probe.touch("before")\n    return probe.object.nested.deeper', false);
    expect(error).toBeUndefined();
    expect(touched).toEqual(['before']);
  });

  it('refuses a call of a JS function Python kept from before the seal', async () => {
    const { booted, touched } = await attempt('import probe\nkept = probe.touch\ndef attempt():\n    kept("after")');
    expect(booted.seal.breach).toBeInstanceOf(SealBreach);
    expect(touched).toEqual([]);
  });

  it('refuses an attribute of a JS object Python kept (no new object reaches Python)', async () => {
    const { booted, touched } = await attempt('import probe\nkept, touch = probe.object, probe.touch\ndef attempt():\n    x = kept.nested\n    touch("got " + repr(x))');
    expect(booted.seal.breach).toBeInstanceOf(SealBreach);
    expect(touched).toEqual([]);
  });

  it('refuses making a new JS object from Python (to_js, create_proxy, JsException)', async () => {
    for (const make of ['to_js([1, 2])', 'create_proxy(print)', 'JsException("boom")']) {
      const { booted, touched } = await attempt(`import probe\nfrom pyodide.ffi import to_js, create_proxy, JsException\ndef attempt():\n    made = ${make}\n    probe.touch(repr(made))`);
      expect(booted.seal.breach, make).toBeInstanceOf(SealBreach);
      expect(touched, make).toEqual([]);
    }
  });

  it('lets plain Python, files and exceptions run sealed', async () => {
    const { error, booted } = await attempt(String.raw`
import os, json
def attempt():
    total = sum(i * i for i in range(1000))
    with open('/tmp/sealed.txt', 'w') as f:
        f.write(json.dumps({'total': total}))
    try:
        {}['missing']
    except KeyError:
        pass
    assert json.load(open('/tmp/sealed.txt'))['total'] == 332833500
    return 7
`);
    expect(booted.seal.breach).toBeUndefined();
    expect(error).toBeUndefined();
  });

  it('refuses sockets whether sealed or not (Pyodide would open real ones in Node)', async () => {
    const { error, touched } = await attempt(String.raw`
import probe, _socket, errno
def attempt():
    try:
        _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
        probe.touch('socket made')
    except OSError as e:
        probe.touch('refused %s' % errno.errorcode.get(e.errno))
`, false);
    expect(error).toBeUndefined();
    expect(touched).toEqual(['refused ENOSYS']);
  });

  it('neuters the entry points that load code, open sockets or run Python', async () => {
    const booted = await boot();
    neuterPyodide(booted);
    const api = booted.module.API as unknown as Record<string, () => unknown>;
    const pyodide = booted.pyodide as unknown as Record<string, unknown>;
    const module = booted.module as unknown as Record<string, () => unknown>;
    expect(() => api.initializeNodeSockFS?.()).toThrow(PyodideEntryRefused);
    expect(() => api.loadDynlib?.()).toThrow(PyodideEntryRefused);
    expect(() => (pyodide.loadPackage as () => unknown)()).toThrow(PyodideEntryRefused);
    expect(() => (pyodide.runPythonAsync as () => unknown)()).toThrow(PyodideEntryRefused);
    expect(() => module.loadWebAssemblyModule?.()).toThrow(PyodideEntryRefused);
    expect(pyodide._api).toBeUndefined();
    expect(pyodide._module).toBeUndefined();
  });
});
