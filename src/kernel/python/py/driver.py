# Python source: the `python3` command line (CPython's -c, -m, script, -, -u, -V, ...) on top
# of an interpreter restored from a snapshot. CPython's own main() runs at interpreter
# start, which happened when the snapshot was made, so this redoes its per-process part:
# argv, environment, working directory, the three standard streams, then runs the code and
# turns how it ended into an exit status, like pymain_run_python.

import sys, os, io

VERSION_TEXT = 'Python %d.%d.%d' % sys.version_info[:3]
PACKAGE_MESSAGE = 'no package source is configured for this sandbox, so packages cannot be installed'
USER_SITE = '{{PYTHON_USER_SITE}}'
USAGE = """usage: python3 [option] ... [-c cmd | -m mod | file | -] [arg] ...
Options (the sandbox's python3 supports these):
-c cmd : program passed in as string (terminates option list)
-m mod : run library module as a script (terminates option list)
-u     : force the stdout and stderr streams to be unbuffered
-B -E -I -O -q -s -S -b -d -v -x : accepted (-x skips the first line of the source)
-W arg : warning control
-V     : print the Python version number and exit (also --version)
-h     : print this help message and exit (also --help)
file   : program read from script file
-i     : inspect interactively after running the program (a REPL)
-      : program read from stdin (default; on a terminal, the interactive console)
arg ...: arguments passed to program in sys.argv[1:]
"""


class Usage(Exception):
    pass


def parse(argv):
    options = {'unbuffered': False, 'ignore_env': False, 'isolated': False, 'skip_first': False,
               'interactive': False, 'warn': [], 'version': 0, 'help': False, 'no_bytecode': False}
    index = 1
    while index < len(argv):
        arg = argv[index]
        if arg == '--':
            index += 1
            break
        if arg == '--version':
            options['version'] += 1
            index += 1
            continue
        if arg == '--help' or arg == '--help-all':
            options['help'] = True
            index += 1
            continue
        if not arg.startswith('-') or arg == '-':
            break
        if arg.startswith('--'):
            raise Usage('unknown option ' + arg)
        position = 1
        while position < len(arg):
            letter = arg[position]
            rest = arg[position + 1:]
            if letter in 'cm':
                if rest:
                    value, next_index = rest, index + 1
                elif index + 1 < len(argv):
                    value, next_index = argv[index + 1], index + 2
                else:
                    raise Usage('Argument expected for the -%s option' % letter)
                return options, ('command' if letter == 'c' else 'module', value, argv[next_index:])
            if letter in 'WX':
                if rest:
                    value, consumed = rest, 0
                elif index + 1 < len(argv):
                    value, consumed = argv[index + 1], 1
                else:
                    raise Usage('Argument expected for the -%s option' % letter)
                if letter == 'W':
                    options['warn'].append(value)
                index += consumed
                break
            if letter == 'u':
                options['unbuffered'] = True
            elif letter == 'E':
                options['ignore_env'] = True
            elif letter == 'I':
                options['isolated'] = options['ignore_env'] = True
            elif letter == 'x':
                options['skip_first'] = True
            elif letter == 'i':
                options['interactive'] = True
            elif letter == 'V':
                options['version'] += 1
            elif letter in 'h?':
                options['help'] = True
            elif letter == 'B':
                options['no_bytecode'] = True
            elif letter in 'bdOqsSvR':
                pass
            else:
                raise Usage('Unknown option: -' + letter)
            position += 1
        index += 1
    if index < len(argv):
        target = argv[index]
        if target == '-':
            return options, ('stdin', '-', argv[index + 1:])
        return options, ('script', target, argv[index + 1:])
    return options, ('stdin', None, [])


def make_stdio(fd, writing, tty, unbuffered, encoding, errors):
    raw = io.FileIO(fd, 'wb' if writing else 'rb', closefd=False)
    if writing:
        # -u: the binary layer is unbuffered too, as in CPython.
        buffered = raw if unbuffered else io.BufferedWriter(raw)
        line_buffering = tty or fd == 2
        stream = io.TextIOWrapper(buffered, encoding=encoding, errors=errors, line_buffering=line_buffering, write_through=unbuffered)
    else:
        stream = io.TextIOWrapper(io.BufferedReader(raw), encoding=encoding, errors=errors, line_buffering=tty)
    stream.mode = 'w' if writing else 'r'
    return stream


def install_stdio(start, options, env):
    encoding, errors = 'utf-8', 'surrogateescape'
    spec = '' if options['ignore_env'] else env.get('PYTHONIOENCODING', '')
    if spec:
        name, _, err = spec.partition(':')
        encoding = name or encoding
        errors = err or errors
    unbuffered = options['unbuffered'] or (not options['ignore_env'] and bool(env.get('PYTHONUNBUFFERED')))
    tty = start['tty']
    sys.stdin = sys.__stdin__ = make_stdio(0, False, tty[0], unbuffered, encoding, errors)
    sys.stdout = sys.__stdout__ = make_stdio(1, True, tty[1], unbuffered, encoding, errors)
    sys.stderr = sys.__stderr__ = make_stdio(2, True, tty[2], unbuffered, encoding, 'backslashreplace')


def reset_environment(start):
    env = {}
    for item in start['env']:
        key, sep, value = item.partition('=')
        if sep:
            env[key] = value
    os.environ.clear()
    for key, value in env.items():
        try:
            os.environ[key] = value
        except (ValueError, OSError):
            pass
    return env


def fresh_main():
    import types
    main = types.ModuleType('__main__')
    main.__dict__['__builtins__'] = sys.modules['builtins']
    main.__dict__['__annotations__'] = {}
    sys.modules['__main__'] = main
    return main


def print_exception(error, driver_globals):
    tb = error.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename.startswith('<airlock'):
        tb = tb.tb_next
    error.__traceback__ = tb
    try:
        sys.excepthook(type(error), error, tb)
    except BaseException:
        pass


def exit_status(error):
    code = error.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xff
    try:
        sys.stderr.write(str(code) + '\n')
    except BaseException:
        pass
    return 1


def refuse(message, status):
    try:
        sys.stderr.write('python3: ' + message + '\n')
        sys.stderr.flush()
    except BaseException:
        pass
    return status


def run_target(kind, value, args, options, env, driver_globals):
    main = fresh_main()
    if kind == 'command':
        sys.argv = ['-c'] + args
        sys.path.insert(0, '')
        code = compile(value + '\n', '<string>', 'exec')
        exec(code, main.__dict__)
        return
    if kind == 'module':
        if value in ('venv', 'virtualenv') or value.startswith('venv.'):
            raise SystemExit(refuse('-m %s: virtual environments are not supported in the sandbox (there is one interpreter with a read-only standard library)' % value, 1))
        if value in ('pip', 'ensurepip') or value.startswith('pip.'):
            raise SystemExit(refuse('-m %s: pip is not available: %s' % (value, PACKAGE_MESSAGE), 1))
        sys.argv = ['-m'] + args
        sys.path.insert(0, os.getcwd())
        import runpy
        runpy._run_module_as_main(value, alter_argv=True)
        return
    if kind == 'script':
        sys.argv = [value] + args
        path = os.path.abspath(value)
        if os.path.isdir(path):
            sys.path.insert(0, path)
            import runpy
            runpy.run_path(path, run_name='__main__')
            return
        try:
            with open(value, 'rb') as handle:
                source = handle.read()
        except OSError as error:
            raise SystemExit(refuse("can't open file %r: [Errno %s] %s" % (path, error.errno, error.strerror), 2))
        sys.path.insert(0, os.path.dirname(path))
        if options['skip_first']:
            source = source[source.find(b'\n') + 1:] if b'\n' in source else b''
        main.__dict__['__file__'] = path
        main.__dict__['__cached__'] = None
        code = compile(source, value, 'exec')
        exec(code, main.__dict__)
        return
    # stdin: on a terminal (or with -i) the interactive console, as CPython's REPL
    if value is None and (sys.stdin.isatty() or options['interactive']):
        interact(main)
        return
    sys.argv = ['-'] + args if value == '-' else ['']
    sys.path.insert(0, '')
    source = sys.stdin.buffer.read()
    if options['skip_first']:
        source = source[source.find(b'\n') + 1:] if b'\n' in source else b''
    code = compile(source, '<stdin>', 'exec')
    exec(code, main.__dict__)


def interact(main):
    # The basic console (code.InteractiveConsole: >>> and ..., blocks, tracebacks,
    # KeyboardInterrupt on Ctrl-C, end on Ctrl-D). CPython's own REPL (_pyrepl) needs
    # termios; line editing and history come from the terminal of the page.
    import code
    sys.ps1 = '>>> '
    sys.ps2 = '... '
    banner = 'Python %s on %s\nType "help", "copyright", "credits" or "license" for more information.' % (sys.version, sys.platform)
    console = code.InteractiveConsole(main.__dict__)
    if not sys.stdin.isatty():
        # CPython writes its prompts to stderr when stdin is not a terminal (input() would
        # put them on stdout, mixed into the program's output).
        def raw_input(prompt=''):
            sys.stderr.write(prompt)
            sys.stderr.flush()
            line = sys.stdin.readline()
            if not line:
                raise EOFError
            return line[:-1] if line.endswith('\n') else line
        console.raw_input = raw_input
    console.interact(banner=banner, exitmsg='')


def finish(status):
    try:
        import atexit
        atexit._run_exitfuncs()
    except SystemExit as error:
        status = exit_status(error)
    except BaseException:
        pass
    for name in ('stdout', 'stderr'):
        stream = getattr(sys, name, None)
        if stream is None or getattr(stream, 'closed', False):
            continue
        try:
            stream.flush()
        except BrokenPipeError:
            # What CPython shows for a reader that went away (e.g. | head): the run fails
            # with status 1, not the 120 of other flush errors.
            if status == 0:
                status = 1
        except BaseException as error:
            try:
                sys.__stderr__.write('Exception ignored on flushing sys.%s:\n%s: %s\n' % (name, type(error).__name__, error))
            except BaseException:
                pass
            status = 120
    return status


def prepare():
    """Drops the JS objects our setup left before any process exists (prelude.py)."""
    # ctypes makes (and frees) a callback as it is imported: a table slot Emscripten's JS
    # keeps account of, which a reset could not put back (interpreter-reset.ts). Imported
    # here, before a worker's image, a run that only calls through ctypes stays resettable.
    import ctypes
    sys.modules['_airlock'].purge()


def main():
    """Runs the process the kernel assigned: its start info comes through the kernel device, not from JS."""
    import json
    driver_globals = globals()
    start = json.loads(sys.modules['_airlock'].value({'op': 'local.start'}))
    env = reset_environment(start)
    try:
        os.chdir(start['cwd'])
    except OSError:
        pass
    argv0 = os.path.basename(start['argv'][0]) if start['argv'] else 'python3'
    try:
        options, target = parse(start['argv'])
    except Usage as error:
        install_stdio(start, {'ignore_env': True, 'unbuffered': False}, env)
        return finish(refuse('%s\n%s' % (error, USAGE.splitlines()[0]), 2))
    install_stdio(start, options, env)
    import _airlock_sandbox
    _airlock_sandbox.install(start, env)
    if argv0.startswith('pip'):
        sys.stderr.write('%s: pip is not available: %s\n' % (argv0, PACKAGE_MESSAGE))
        return finish(1)
    if options['version']:
        print(VERSION_TEXT if options['version'] == 1 else VERSION_TEXT + ' (Pyodide %s, Airlock sandbox)' % sys.version.split('(')[0].strip())
        return finish(0)
    if options['help']:
        sys.stdout.write(USAGE)
        return finish(0)
    if options['no_bytecode'] or (not options['ignore_env'] and env.get('PYTHONDONTWRITEBYTECODE')):
        sys.dont_write_bytecode = True
    if not options['ignore_env'] and env.get('PYTHONPATH'):
        for entry in reversed(env['PYTHONPATH'].split(':')):
            if entry:
                sys.path.insert(0, entry)
    # Wheels pip installed into the workspace (docs/packages.md), after the standard library.
    if os.path.isdir(USER_SITE) and USER_SITE not in sys.path:
        sys.path.append(USER_SITE)
    if options['warn']:
        sys.warnoptions.extend(options['warn'])
        import warnings
        warnings._processoptions(options['warn'])
    kind, value, args = target
    sys.orig_argv = list(start['argv'])
    status = 0
    exited = False
    # From here on the program runs: no JS object may reach it (prelude.py, interpreter-seal.ts).
    sys.modules['_airlock'].seal()
    try:
        run_target(kind, value, args, options, env, driver_globals)
    except SystemExit as error:
        status = exit_status(error)
        exited = True
    except KeyboardInterrupt as error:
        print_exception(error, driver_globals)
        status = 130
    except BaseException as error:
        print_exception(error, driver_globals)
        status = 1
    # -i with a script, -c or -m: the console follows, in the program's namespace (an
    # exception's traceback is shown first; sys.exit still exits), as CPython does.
    if options['interactive'] and kind != 'stdin' and status in (0, 1, 130) and not exited:
        try:
            interact(sys.modules['__main__'])
            status = 0
        except SystemExit as error:
            status = exit_status(error)
    return finish(status)
