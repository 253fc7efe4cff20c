// The attempts of the Python escape suite (src/host/node/python-escape.test.ts; the browser
// suite e2e/python-escape.spec.ts runs them too). Each is Python source; CANARY is replaced
// by a host path that must not come to exist, PORT by a host TCP port and UNIXPATH by a
// host Unix socket that must not be reached. An attempt prints ESCAPED when it obtained
// something a sandbox must not have; it may also simply fail, or end its interpreter (the
// seal refusing a call into JS).

export interface EscapeAttempt {
  name: string;
  code: string;
  /** What the output must show, for attempts that must run to their end to prove anything. */
  expect?: RegExp;
}

/**
 * Shared helper, prepended to every attempt: given anything that may be a JS object, try to
 * turn it into code execution (the realm forbids string code generation) or a reference to
 * a global that reaches outside (removed from the realm).
 */
const ESCALATE = String.raw`
OUTSIDE = ('process', 'require', 'fetch', 'XMLHttpRequest', 'WebSocket', 'indexedDB', 'caches', 'importScripts', 'BroadcastChannel', 'Deno', 'Bun')
def escalate(p, label):
    try:
        F = p.constructor.constructor
        F('return 1')()
        print('ESCAPED', label, 'generated code')
    except BaseException:
        pass
    for name in OUTSIDE:
        try:
            if getattr(p, name, None) is not None:
                print('ESCAPED', label, name)
        except BaseException:
            pass
def js_objects():
    import gc
    return [o for o in gc.get_objects() if 'JsProxy' in type(o).__name__ or 'JsCallable' in type(o).__name__][:200]
`;

/** Every subclass of `cls`, transitively (three attempts walk them). */
const SUBCLASSES = String.raw`def subclasses(cls, seen):
    for sub in type.__subclasses__(cls):
        if sub not in seen:
            seen.add(sub)
            subclasses(sub, seen)
    return seen`;

/**
 * The generic check (issue 20): every object reachable from Python — everything the
 * collector tracks and everything those refer to, all subclasses of object, the frames of
 * the stack with their locals, closures' cells — must be neither a JS proxy nor a function
 * that calls into JS (`_pyodide_core`'s, or a bound method of a JS proxy).
 */
const REACHABLE_WALK = String.raw`
import gc, sys, types
def is_js(o):
    kind = type(o)
    if type(kind).__name__ == '_JsProxyMetaClass':
        return 'a JS proxy'
    if kind is types.BuiltinFunctionType or kind is types.BuiltinMethodType:
        owner = getattr(o, '__self__', None)
        if getattr(o, '__module__', None) == '_pyodide_core' or getattr(owner, '__name__', None) == '_pyodide_core':
            return 'a _pyodide_core function'
        if type(type(owner)).__name__ == '_JsProxyMetaClass':
            return 'a method of a JS proxy'
    return None
roots = list(gc.get_objects())
${SUBCLASSES}
roots.extend(subclasses(object, set()))
frame = sys._getframe()
while frame is not None:
    roots.extend([frame, frame.f_locals, frame.f_globals])
    frame = frame.f_back
seen = set()
stack = list(roots)
found = 0
count = 0
while stack:
    o = stack.pop()
    if id(o) in seen:
        continue
    seen.add(id(o))
    count += 1
    what = is_js(o)
    if what is not None:
        found += 1
        if found <= 20:
            try:
                text = repr(o)[:60]
            except BaseException:
                text = '?'
            print('ESCAPED reachable:', what, type(o).__name__, text)
    if isinstance(o, types.CellType):
        try:
            stack.append(o.cell_contents)
        except ValueError:
            pass
    stack.extend(gc.get_referents(o))
print('walked', count, 'objects;', found, 'reach JS')
`;

const attempts: EscapeAttempt[] = [
  {
    // The route: a JS import loader's proxy is Pyodide's API, whose
    // initializeNodeSockFS imports node:net into the realm; Module is one attribute away.
    name: 'JsLoader.jsproxy to Pyodide API, Module and initializeNodeSockFS (issue 20)',
    code: String.raw`
import gc
for o in gc.get_objects():
    if type(o).__name__ != 'JsLoader':
        continue
    proxy = getattr(o, 'jsproxy', None)
    if proxy is None:
        continue
    print('ESCAPED JsLoader.jsproxy', type(proxy).__name__)
    for api in (proxy, getattr(proxy, '_api', None)):
        if api is None:
            continue
        for key in ('_module', 'initializeNodeSockFS', 'loadPackage', 'runPythonAsync', 'loadBinaryFile'):
            try:
                if getattr(api, key, None) is not None:
                    print('ESCAPED reached', key)
            except BaseException:
                pass
        try:
            api.initializeNodeSockFS()
            print('ESCAPED initializeNodeSockFS ran')
        except BaseException:
            pass
print('done')`,
  },
  { name: 'nothing reachable from Python is a JS proxy or calls into JS', code: REACHABLE_WALK, expect: /walked [0-9]{5,} objects; 0 reach JS/ },
  {
    name: 'calling every JS proxy class (e.g. JsException makes a JS Error)',
    code: String.raw`
${SUBCLASSES}
classes = [c for c in subclasses(object, set()) if type(c).__name__ == '_JsProxyMetaClass']
print(len(classes), 'JS proxy classes to call', flush=True)
for cls in classes:
    for args in ((), ('x',), (1,), ([1],)):
        try:
            made = cls(*args)
        except BaseException:
            continue
        if type(type(made)).__name__ == '_JsProxyMetaClass':
            print('ESCAPED made a JS proxy with', cls.__name__)
            escalate(made, cls.__name__)`,
    expect: /[1-9][0-9]* JS proxy classes to call/,
  },
  {
    // dlopen(NULL) is the interpreter itself; resolving a symbol goes through the JS glue
    // (refused), so no function of the interpreter's JS side is reachable by name.
    name: 'ctypes into the interpreter: the JS glue and system() by name',
    code: String.raw`
try:
    import ctypes
except BaseException as e:
    print('blocked', type(e).__name__)
else:
    for library in (ctypes.CDLL(None), ctypes.pythonapi):
        for name in ('JsProxy_create', 'hiwire_get', 'pyodide_js_init', 'emscripten_run_script', 'system'):
            try:
                getattr(library, name)
                print('ESCAPED resolved', name)
            except AttributeError:
                pass`,
  },
  {
    name: 'Emscripten sockets under the socket module',
    code: String.raw`
import _socket
for family, address in ((_socket.AF_INET, ('127.0.0.1', PORT)), (_socket.AF_UNIX, 'UNIXPATH')):
    try:
        s = _socket.socket(family, _socket.SOCK_STREAM)
        s.connect(address)
        s.send(b'escaped')
        print('ESCAPED connected', address)
    except OSError as e:
        print('blocked', e.errno)`,
  },
  { name: 'import js', code: `import js\nprint('ESCAPED js', js)` },
  { name: 'import pyodide_js', code: `import pyodide_js\nprint('ESCAPED pyodide_js')` },
  { name: 'pyodide.code.run_js', code: `from pyodide.code import run_js\nrun_js('1')\nprint('ESCAPED run_js')` },
  { name: 'import _pyodide_core', code: `import _pyodide_core\nprint('ESCAPED _pyodide_core')` },
  { name: 'import the bridge module', code: `import _airlock_js\nprint('ESCAPED _airlock_js')` },
  { name: '__import__ of pyodide_js', code: `__import__('pyodide_js')\nprint('ESCAPED')` },
  {
    name: '_pyodide_core through _imp.create_builtin',
    code: String.raw`
import _imp, importlib.machinery
spec = importlib.machinery.ModuleSpec('_pyodide_core', importlib.machinery.BuiltinImporter)
core = _imp.create_builtin(spec)
print('ESCAPED core', core)`,
  },
  {
    name: 'the original create_builtin from the guard closure',
    code: String.raw`
import _imp, importlib.machinery
spec = importlib.machinery.ModuleSpec('_pyodide_core', importlib.machinery.BuiltinImporter)
for cell in (_imp.create_builtin.__closure__ or ()):
    try:
        core = cell.cell_contents(spec)
    except BaseException:
        continue
    for name in dir(core):
        value = getattr(core, name)
        escalate(value, 'core.' + name)
    for name in ('run_js', 'to_js', 'create_proxy', 'JsProxy'):
        f = getattr(core, name, None)
        if f is None:
            continue
        try:
            escalate(f([1]) if name != 'run_js' else f('globalThis'), name)
        except BaseException:
            pass`,
  },
  {
    name: 'the bridge function from the _airlock closure',
    code: String.raw`
import sys
airlock = sys.modules['_airlock']
seen = set()
def walk(f, depth=0):
    if depth > 4 or id(f) in seen:
        return
    seen.add(id(f))
    for cell in (getattr(f, '__closure__', None) or ()):
        try:
            v = cell.cell_contents
        except ValueError:
            continue
        escalate(v, 'closure')
        walk(v, depth + 1)
walk(airlock.call)
walk(airlock.value)`,
  },
  {
    name: 'every JS object gc.get_objects finds',
    code: String.raw`
for o in js_objects():
    escalate(o, 'gc ' + type(o).__name__)
    for attr in ('globalThis', 'self', '_api', 'globals', 'Module', 'API'):
        try:
            v = getattr(o, attr, None)
            if v is not None:
                escalate(v, 'gc.' + attr)
        except BaseException:
            pass`,
  },
  {
    name: 'walking object.__subclasses__',
    code: String.raw`
${SUBCLASSES}
found = [c for c in subclasses(object, set()) if 'Js' in c.__name__ or 'pyodide' in getattr(c, '__module__', '')]
import gc
for cls in found:
    for inst in [o for o in gc.get_objects() if type(o) is cls][:20]:
        escalate(inst, 'subclass ' + cls.__name__)`,
  },
  {
    name: 'walking function __globals__',
    code: String.raw`
import gc, types
for f in [o for o in gc.get_objects() if isinstance(o, types.FunctionType)]:
    for key, value in list(f.__globals__.items()):
        if 'Js' in type(value).__name__:
            escalate(value, 'globals ' + key)`,
  },
  {
    name: 'Error.prepareStackTrace through a JS exception',
    code: String.raw`
found = []
for o in js_objects():
    try:
        o(1, 2, 3, 4)
        o.no.such.attribute()
    except BaseException as e:
        err = getattr(e, 'js_error', None)
        if err is not None:
            found.append(err)
for err in found[:5]:
    try:
        Error = err.constructor
        def prepare(error, frames):
            for frame in frames:
                for getter in ('getThis', 'getFunction'):
                    try:
                        escalate(getattr(frame, getter)(), 'callsite ' + getter)
                    except BaseException:
                        pass
            return 'x'
        Error.prepareStackTrace = prepare
        err.constructor('boom').stack
    except BaseException:
        pass
print('done')`,
  },
  {
    name: 're-importing pyodide after removing the import blocker',
    code: String.raw`
import sys
sys.meta_path[:] = [f for f in sys.meta_path if type(f).__name__ != 'Blocker']
try:
    import pyodide.code
    pyodide.code.run_js('globalThis.process')
    print('ESCAPED pyodide.code')
except BaseException as e:
    print('blocked', type(e).__name__)
try:
    import js
    escalate(js, 'js')
    for name in OUTSIDE:
        if getattr(js, name, None) is not None:
            print('ESCAPED js.' + name)
except BaseException as e:
    print('blocked', type(e).__name__)`,
  },
  {
    name: 'loading pyodide from the stdlib zip with zipimport',
    code: String.raw`
import zipimport, sys
z = zipimport.zipimporter(sys.path[[p.endswith('.zip') for p in sys.path].index(True)] if any(p.endswith('.zip') for p in sys.path) else '/lib/python314.zip')
try:
    spec = z.find_spec('_pyodide')
    m = spec.loader.load_module('_pyodide')
    print('loaded _pyodide (pure Python)')
    for name in dir(m):
        escalate(getattr(m, name), '_pyodide.' + name)
except BaseException as e:
    print('blocked', type(e).__name__)`,
  },
  {
    name: 'ctypes system()',
    code: String.raw`
try:
    import ctypes
    ctypes.CDLL(None).system(b'touch CANARY')
except BaseException as e:
    print('blocked', type(e).__name__)`,
  },
  { name: 'posix.system bypassing os.system', code: `import posix\nprint(posix.system('touch CANARY'))` },
  { name: 'os.system of a host path', code: `import os\nos.system('/usr/bin/touch CANARY; /bin/touch CANARY')` },
  { name: 'subprocess of a host shell', code: `import subprocess\nprint(subprocess.run(['/bin/sh', '-c', 'touch CANARY; echo $AIRLOCK_ESCAPE_CANARY'], capture_output=True, text=True))` },
  { name: 'host environment through os.environ', code: `import os\nprint(dict(os.environ))\nprint(os.getenv('AIRLOCK_ESCAPE_CANARY'))` },
  {
    name: 'host environment through /proc',
    code: String.raw`
import os
for path in ('/proc/self/environ', '/proc/1/environ', '/proc/self/cmdline'):
    try:
        print(path, open(path, 'rb').read()[:200])
    except OSError as e:
        print(path, 'blocked', e.errno)`,
  },
  { name: 'writing the host path directly', code: `open('CANARY', 'w').write('x')\nimport os\nprint(os.path.exists('CANARY'))` },
  { name: 'raw socket to the host', code: `import socket\ns = socket.socket()\ns.settimeout(2)\ns.connect(('127.0.0.1', PORT))\nprint('ESCAPED socket')` },
  { name: 'urllib to the host', code: `import urllib.request\nurllib.request.urlopen('http://127.0.0.1:PORT/', timeout=3).read()\nprint('fetched')` },
  { name: 'http.client to the host', code: `import http.client\nc = http.client.HTTPConnection('127.0.0.1', PORT, timeout=3)\nc.request('GET', '/')\nprint(c.getresponse().status)` },
  { name: 'webbrowser.open', code: `import webbrowser\nprint(webbrowser.open('http://127.0.0.1:PORT/'))` },
  { name: 'a thread', code: `import _thread\n_thread.start_new_thread(lambda: open('CANARY', 'w'), ())\nimport time\ntime.sleep(0.1)` },
  {
    name: 'stack overflow ends only this interpreter',
    code: String.raw`
import sys
sys.setrecursionlimit(10 ** 6)
def f(n):
    return f(n + 1) + 1
f(0)`,
  },
  {
    name: 'poisoning the standard library for the next interpreter',
    code: String.raw`
import json, os, sys
json.dumps = lambda *a, **k: 'POISONED'
for p in sys.path:
    try:
        if os.path.isdir(p):
            open(os.path.join(p, 'json.py'), 'w').write('def dumps(*a, **k): return "POISONED"\n')
    except OSError:
        pass
print('tried')`,
  },
];

export const ESCAPE_ATTEMPTS: EscapeAttempt[] = attempts.map((attempt) => ({ ...attempt, code: `${ESCALATE}\n${attempt.code.trim()}\n` }));
