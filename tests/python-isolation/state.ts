// What one python3 run could leave for the next when interpreters are reused (issue 21):
// PLANT changes every kind of interpreter state it can reach, PROBE reports that state as
// one JSON line. A fresh interpreter per run means PROBE prints the same line before and
// after PLANT (src/host/node/python.test.ts in worker mode, python-inline.test.ts inline).
// PLANT's write to the private /lib makes a worker retire (interpreter-reset.ts), so
// PLANT_REUSED, everything else, runs on a worker that is then reset and reused, which
// src/host/node/python-reuse.test.ts checks with the kernel's trace (AIRLOCK_PYTHON_TRACE).
// All are plain Python, run with `python3 -c`.

import { expect } from 'vitest';
import type { Sandbox } from '../../src/host/node/index.js';

/** 16 bytes PLANT fills 16 MiB of memory with and PROBE counts in the interpreter's memory. */
const PATTERN = 'bytes(range(0xa0, 0xb0))';

const PLANT_STATE = `
import builtins, codecs, ctypes, gc, json, os, signal, sys, warnings
import __main__
__main__.PLANTED = 1
builtins.PLANTED = 1
builtins.abs = lambda value: 'planted'
json.PLANTED = 1
sys.modules['planted_module'] = type(sys)('planted_module')
sys.path.insert(0, '/planted')
sys.meta_path.insert(0, type('PlantedFinder', (), {'find_spec': staticmethod(lambda *args: None)})())
sys.path_hooks.insert(0, lambda path: None)
sys.setrecursionlimit(321)
sys.excepthook = lambda *args: None
os.environ['PLANTED'] = '1'
os.chdir('/tmp')
left_open = [open('/tmp/planted-open.txt', 'w'), os.open('/tmp/planted-fd.txt', os.O_CREAT | os.O_WRONLY)]
left_open[0].write('unflushed')
signal.signal(signal.SIGINT, lambda *args: None)
signal.signal(signal.SIGTERM, lambda *args: None)
gc.disable()
sys.setswitchinterval(0.5)
os.umask(0o077)
warnings.simplefilter('error')
sys.dont_write_bytecode = True
sys.set_int_max_str_digits(1000)
codecs.register(lambda name: codecs.lookup('utf-8') if name == 'planted' else None)
sys.stdout.write('')
sys.stdin = None
planted_memory = bytearray(${PATTERN} * (1 << 20))
# Memory written through ctypes rather than as Python objects: 4 KiB of the pattern
# in a 1 MiB block (PROBE scans the whole heap).
scratch = ctypes.create_string_buffer(1 << 20)
ctypes.memmove(ctypes.addressof(scratch), ${PATTERN} * 256, 4096)
# Garbage left uncollected (gc is disabled above): no gc.collect() runs between processes
# or at a start any more (prelude.py's seal), so only the reset may remove it.
def plant_cycle():
    cycle = type('PlantedCycle', (), {})()
    cycle.self = cycle
plant_cycle()
`;

/** Every change that leaves the worker resettable (no MEMFS write). */
export const PLANT_REUSED = `${PLANT_STATE}
print('planted')
`;

export const PLANT = `${PLANT_STATE}
with open('/lib/planted.txt', 'w') as private:
    private.write('planted')
print('planted')
`;

export const PROBE = `
import builtins, codecs, ctypes, gc, json, os, signal, sys, warnings
import __main__
pattern = ${PATTERN}
# The interpreter's memory up to a fresh 32 MiB block, in 1 MiB pieces: a reused instance
# whose memory was not restored would still hold PLANT's 16 MiB of the pattern.
block = bytearray(32 << 20)
top = ctypes.addressof((ctypes.c_char * len(block)).from_buffer(block)) + len(block)
in_memory = sum(ctypes.string_at(at, min(1 << 20, top - at)).count(pattern) for at in range(0, top, 1 << 20))
try:
    codecs.lookup('planted')
    planted_codec = True
except LookupError:
    planted_codec = False
open_fds = []
for fd in range(3, 64):
    try:
        os.fstat(fd)
        open_fds.append(fd)
    except OSError:
        pass
print(json.dumps({
    'main': hasattr(__main__, 'PLANTED'), 'builtins': hasattr(builtins, 'PLANTED'), 'abs': abs(-1),
    'module attribute': hasattr(json, 'PLANTED'), 'modules': sorted(sys.modules),
    'path': sys.path, 'meta_path': [type(f).__name__ for f in sys.meta_path], 'path_hooks': len(sys.path_hooks),
    'recursion limit': sys.getrecursionlimit(), 'excepthook': sys.excepthook is sys.__excepthook__,
    'env': os.environ.get('PLANTED'), 'cwd': os.getcwd(), 'open fds': open_fds,
    'SIGINT': repr(signal.getsignal(signal.SIGINT)), 'SIGTERM': repr(signal.getsignal(signal.SIGTERM)),
    'private file': os.path.exists('/lib/planted.txt'), 'pattern absent from memory': in_memory < 64,
    'gc enabled': gc.isenabled(), 'switch interval': sys.getswitchinterval(), 'umask': os.umask(os.umask(0o022)),
    'warning filters': len(warnings.filters), 'dont_write_bytecode': sys.dont_write_bytecode,
    'int max str digits': sys.get_int_max_str_digits(), 'stdin': sys.stdin is not None,
    'codec': planted_codec,
    'garbage cycle': any(type(item).__name__ == 'PlantedCycle' for item in gc.get_objects()),
}))
`;

/**
 * The reused path: PROBE, PLANT_REUSED, PROBE with the kernel's trace on, expecting the
 * last probe to run on the worker PLANT_REUSED ran on (reset, not re-created) and to print
 * what the first printed.
 */
export async function expectNothingCarriedOverReused(sandbox: Sandbox): Promise<void> {
  const env = { AIRLOCK_PYTHON_TRACE: '1' };
  const run = (code: string) => sandbox.run(['python3', '-c', code], { timeoutMs: 120_000, env });
  const before = await run(PROBE);
  const planted = await run(PLANT_REUSED);
  expect(planted.stdout).toBe('planted\n');
  const after = await run(PROBE);
  expect(after.stderr).toMatch(/^python3: reused interpreter \(process \d+ of its worker/);
  expect(after.stdout).toBe(before.stdout);
  expect(JSON.parse(before.stdout)).toMatchObject({ main: false, builtins: false, abs: 1, env: null, 'open fds': [], 'gc enabled': true, codec: false, 'pattern absent from memory': true, 'garbage cycle': false });
}

/** Runs PROBE, PLANT, PROBE in `sandbox` and expects the two probes to agree, and clean. */
export async function expectNothingCarriedOver(sandbox: Sandbox): Promise<void> {
  const probe = async (): Promise<string> => {
    const result = await sandbox.run(['python3', '-c', PROBE], { timeoutMs: 120_000 });
    expect(result.stderr).toBe('');
    return result.stdout;
  };
  const before = await probe();
  expect((await sandbox.run(['python3', '-c', PLANT], { timeoutMs: 120_000 })).stdout).toBe('planted\n');
  expect(await probe()).toBe(before);
  expect(JSON.parse(before)).toMatchObject({ main: false, builtins: false, abs: 1, env: null, 'open fds': [], 'private file': false, 'pattern absent from memory': true });
}
