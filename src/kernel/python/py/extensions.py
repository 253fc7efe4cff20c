# Python source of `airlock_extensions` (docs/extensions.md): each host extension as a
# function, `NAME(*args, stdin=b'')`, which runs the extension's command (a sandbox process
# like any other, so the allowlist and limits apply) and returns its stdout as bytes, or
# raises ExtensionError (a CalledProcessError carrying stdout and stderr) on a non-zero
# status. The names are the registered ones only, as the kernel gives every process in
# AIRLOCK_EXTENSIONS; a name with `-` is also reachable with `_`.

def _airlock_extensions_module():
    import sys, types, os, subprocess
    module = types.ModuleType('airlock_extensions', 'The host extensions of this sandbox, as functions: NAME(*args, stdin=b"") -> stdout bytes.')

    class ExtensionError(subprocess.CalledProcessError):
        """An extension ended with a non-zero status; stdout and stderr are kept."""
        def __str__(self):
            detail = (self.stderr or b'').decode('utf-8', 'replace').strip()
            return 'extension %s exited with status %d%s' % (self.cmd[0], self.returncode, ': ' + detail if detail else '')

    def names():
        return [name for name in os.environ.get('AIRLOCK_EXTENSIONS', '').split() if name]

    def function(name):
        def call(*args, stdin=b''):
            data = stdin.encode('utf-8') if isinstance(stdin, str) else bytes(stdin)
            argv = [name] + [os.fsdecode(arg) if isinstance(arg, (bytes, os.PathLike)) else str(arg) for arg in args]
            done = subprocess.run(argv, input=data, capture_output=True)
            if done.returncode != 0:
                raise ExtensionError(done.returncode, argv, done.stdout, done.stderr)
            return done.stdout
        call.__name__ = call.__qualname__ = name.replace('-', '_')
        call.__doc__ = 'Runs the host extension %r (see: %s --help); returns its stdout as bytes.' % (name, name)
        return call

    def __getattr__(attribute):
        for name in names():
            if attribute in (name, name.replace('-', '_')):
                return function(name)
        raise AttributeError("module 'airlock_extensions' has no attribute %r: no extension of that name is registered" % attribute)

    module.__getattr__ = __getattr__
    module.__dir__ = lambda: sorted(set(names()) | {'ExtensionError'})
    module.__all__ = []
    module.ExtensionError = ExtensionError
    sys.modules['airlock_extensions'] = module

_airlock_extensions_module()
