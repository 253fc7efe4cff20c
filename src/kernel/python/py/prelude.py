# Python source run in every interpreter before any user code. It builds the private module
# `_airlock`, the one way Python calls the kernel: requests written to the kernel device
# (kernel-device.ts) with plain file calls, so Python never holds a JS object. It removes
# and blocks Pyodide's bridges to the JS realm (`js`, `pyodide_js`, `pyodide`, `_pyodide`,
# `_pyodide_core`, the JS import finder), and gives the driver `_airlock.seal()`, which
# drops every JS object and JS-calling function left in the interpreter's heap (the JS
# import loaders' proxies, Pyodide's module globals, `_pyodide_core`'s functions and its
# import-cache copy) and then closes the interpreter's seal (interpreter-seal.ts): from
# then on no JS object can cross between Python and the realm, whatever Python finds.
# The realm itself is hardened too (workers/harden.ts), and nothing outside the sandbox
# trusts any of this (docs/architecture.md §1).

def _airlock_prelude():
    import sys, os, types, gc, _imp, importlib.abc, importlib.machinery
    # Taken now: user code may replace os.open or json.dumps in its own process, not these.
    from posix import open as device_open, read as device_read, write as device_write, close as device_close, O_RDWR
    from json import dumps, loads
    device = '{{KERNEL_DEVICE_PATH}}'

    def exchange(message):
        fd = device_open(device, O_RDWR)
        try:
            device_write(fd, message)
            head = device_read(fd, 8)
            json_size = int.from_bytes(head[0:4], 'little')
            data_size = int.from_bytes(head[4:8], 'little', signed=True)
            size = json_size + max(data_size, 0)
            parts, got = [], 0
            while got < size:
                part = device_read(fd, size - got)
                if not part:
                    break
                parts.append(part)
                got += len(part)
        finally:
            device_close(fd)
        body = b''.join(parts)
        return body[:json_size], (body[json_size:] if data_size >= 0 else None)

    def call(request, data=None):
        """One kernel call: returns (value, data bytes or None); raises OSError with the errno."""
        message = dumps(request).encode()
        if data is not None:
            message += b'\0' + bytes(data)
        head, payload = exchange(message)
        answer = loads(head)
        if not answer.get('ok'):
            number = answer.get('errno', 5)
            raise OSError(number, answer.get('message') or os.strerror(number))
        return answer.get('value'), payload

    blocked_prefixes = ('js', 'pyodide_js', 'pyodide', '_pyodide', '_pyodide_core', 'pyodide_http', '_airlock_js')
    package_message = 'no package source is configured for this sandbox, so packages cannot be installed'

    def is_blocked(name):
        top = name.split('.')[0]
        return top in blocked_prefixes

    class Blocker(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split('.')[0] == 'micropip':
                raise ModuleNotFoundError(f'No module named {name!r}: micropip is not available ({package_message})', name=name)
            if is_blocked(name):
                raise ModuleNotFoundError(f'No module named {name!r}: the JavaScript bridge is not available in the sandbox', name=name)
            return None

    removed = [sys.modules.pop(name) for name in list(sys.modules) if is_blocked(name)]
    sys.meta_path[:] = [finder for finder in sys.meta_path if type(finder).__module__ not in ('pyodide._importhook', '_pyodide._importhook')]
    sys.meta_path.insert(0, Blocker())
    sys.path_hooks[:] = [hook for hook in sys.path_hooks if 'pyodide' not in getattr(hook, '__module__', '')]
    sys.path_importer_cache.clear()

    create_builtin = _imp.create_builtin

    def guarded_create_builtin(spec):
        if is_blocked(spec.name):
            raise ImportError(f'{spec.name} is not available in the sandbox', name=spec.name)
        return create_builtin(spec)

    _imp.create_builtin = guarded_create_builtin

    def purge():
        """Drops every JS proxy and _pyodide_core function the removed modules left behind."""
        modules = [m for m in removed if type(m) is types.ModuleType]
        core = next((m for m in modules if m.__name__ == '_pyodide_core'), None)
        removed.clear()
        if core is None:
            return
        proxy_type = type(vars(core)['JsException'])
        builtin = types.BuiltinFunctionType

        def is_js(value):
            kind = type(value)
            if type(kind) is proxy_type:
                return True
            return kind is builtin and (value.__self__ is core or type(type(value.__self__)) is proxy_type)

        def clean(mapping):
            for key in [key for key, value in mapping.items() if is_js(value)]:
                del mapping[key]

        targets = [value for value in vars(core).values() if is_js(value)]
        loaders = [vars(m)['JsLoader'] for m in modules if isinstance(vars(m).get('JsLoader'), type)]
        for module in modules:
            clean(vars(module))
        # What still holds them: the import system's copy of the module's globals (used to
        # re-create it), and the JS import loaders (each keeps its module's proxy).
        for holder in gc.get_referrers(*targets, *loaders):
            if type(holder) is dict:
                clean(holder)
            elif type(holder) is list:
                holder[:] = [value for value in holder if not is_js(value)]
            elif loaders and isinstance(holder, tuple(loaders)):
                clean(vars(holder))

    purged = []

    def purge_now():
        """Removes the JS objects from the heap (again a no-op): done before a worker's image is taken."""
        purge()
        gc.collect()
        purged.append(True)

    def seal():
        """Removes the JS objects from the heap (unless purge_now did), then closes the seal: call before user code."""
        # The worker purges before its image (driver.prepare), so a run normally finds
        # nothing to remove; the full gc.collect() at every start was ~10-100 ms of each
        # python3 (a walk of the whole heap), for a heap that holds no JS object.
        if not purged:
            purge_now()
        call({'op': 'local.seal'})

    airlock = types.ModuleType('_airlock', 'The sandbox kernel, as seen from Python (private).')
    airlock.call = call
    airlock.value = lambda request, data=None: call(request, data)[0]
    airlock.seal = seal
    airlock.purge = purge_now
    sys.modules['_airlock'] = airlock
    return airlock

_airlock_prelude()
del _airlock_prelude
