// Python source run in every interpreter before any user code: it takes the bridge to the
// kernel (the `_airlock_js` module the runtime registered) into closures of a private
// module `_airlock`, then removes and blocks Pyodide's bridges to the JS realm (`js`,
// `pyodide_js`, `pyodide`, `_pyodide`, `_pyodide_core`, the JS import finder). This is the
// first layer only: the realm itself is hardened too (workers/python-harden.ts), and nothing
// outside the sandbox trusts it (ARCHITECTURE.md §1).

export const PRELUDE_SOURCE = String.raw`
def _airlock_prelude():
    import sys, os, types, _imp, importlib.abc, importlib.machinery

    bridge = sys.modules.pop('_airlock_js', None)
    if bridge is None:
        import _airlock_js as bridge
        sys.modules.pop('_airlock_js', None)

    import json
    bridge_call = bridge.call

    def call(request, data=None):
        """One kernel call: returns (value, data bytes or None); raises OSError with the errno."""
        reply = bridge_call(json.dumps(request), None if data is None else bytes(data).decode('latin-1'))
        head, separator, payload = reply.partition('\0')
        answer = json.loads(head)
        if not answer.get('ok'):
            number = answer.get('errno', 5)
            raise OSError(number, answer.get('message') or os.strerror(number))
        return answer.get('value'), (payload.encode('latin-1') if separator else None)

    airlock = types.ModuleType('_airlock', 'The sandbox kernel, as seen from Python (private).')
    airlock.call = call
    airlock.value = lambda request, data=None: call(request, data)[0]
    sys.modules['_airlock'] = airlock

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

    for name in list(sys.modules):
        if is_blocked(name):
            del sys.modules[name]
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
    del bridge
    return airlock

_airlock_prelude()
del _airlock_prelude
`;
