# Python source of the private `_airlock_sandbox` module: the per-process parts of the
# runtime that Python code reaches through the standard library — os.pipe, os.system,
# os.getpid, subprocess.Popen, time.sleep, select on pipes — rewired to kernel calls
# (the `_airlock` bridge set up by the prelude). Child processes are sandbox processes
# started by the kernel, so the tool allowlist and limits apply to them.

def _airlock_sandbox_module():
    import sys, types, os, errno, time
    airlock = sys.modules['_airlock']
    value = airlock.value
    module = types.ModuleType('_airlock_sandbox')

    def kernel_fd(fd):
        return value({'op': 'local.kernelFd', 'fd': fd})

    def wrap(kernel, flags):
        return value({'op': 'local.wrap', 'fd': kernel, 'flags': flags})

    def pipe():
        read_end, write_end = value({'op': 'pipe'})
        return wrap(read_end, os.O_RDONLY), wrap(write_end, os.O_WRONLY)

    def environment(env):
        source = os.environ if env is None else env
        return ['%s=%s' % (os.fsdecode(k), os.fsdecode(v)) for k, v in source.items()]

    def spawn(argv, env=None, cwd=None, fds=None, new_group=False):
        argv = [os.fsdecode(a) for a in argv]
        mapping = fds if fds is not None else {0: 0, 1: 1, 2: 2}
        pairs = [[child, kernel_fd(parent)] for child, parent in sorted(mapping.items())]
        request = {'program': argv[0], 'argv': argv, 'env': environment(env),
                   'cwd': os.fsdecode(cwd) if cwd is not None else os.getcwd(), 'fds': pairs, 'newGroup': bool(new_group)}
        try:
            return value({'op': 'spawn', 'request': request})
        except OSError as error:
            raise OSError(error.errno, os.strerror(error.errno), argv[0]) from None

    def wait(pid, no_hang=False):
        result = value({'op': 'wait', 'pid': pid, 'noHang': bool(no_hang)})
        if result is None:
            return None
        return result['pid'], result['status']

    def sleep(seconds):
        seconds = float(seconds)
        if seconds < 0:
            raise ValueError('sleep length must be non-negative')
        value({'op': 'sleep', 'ms': int(seconds * 1000)})

    def poll_read(fds, timeout_ms=None):
        kernel = {kernel_fd(fd): fd for fd in fds}
        ready = value({'op': 'poll', 'fds': list(kernel), 'timeoutMs': timeout_ms})
        return [kernel[fd] for fd in ready]

    def system(command):
        pid = spawn(['/bin/sh', '-c', os.fsdecode(command)])
        _, status = wait(pid)
        return (status & 0xff) << 8

    def waitpid(pid, options):
        result = wait(pid, bool(options & os.WNOHANG))
        if result is None:
            return 0, 0
        return result[0], (result[1] & 0xff) << 8

    def kill(pid, signal):
        value({'op': 'kill', 'pid': int(pid), 'signal': int(signal)})

    def install_subprocess(subprocess):
        subprocess._can_fork_exec = True
        subprocess._USE_POSIX_SPAWN = False
        Popen = subprocess.Popen

        def _execute_child(self, args, executable, preexec_fn, close_fds, pass_fds, cwd, env,
                           startupinfo, creationflags, shell, p2cread, p2cwrite, c2pread, c2pwrite,
                           errread, errwrite, restore_signals, gid, gids, uid, umask,
                           start_new_session, process_group):
            if isinstance(args, (str, bytes)):
                args = [args]
            elif isinstance(args, os.PathLike):
                if shell:
                    raise TypeError('path-like args is not allowed when shell is true')
                args = [args]
            else:
                args = list(args)
            if shell:
                args = ['/bin/sh', '-c'] + args
                if executable:
                    args[0] = executable
            if executable is not None:
                args = [executable] + args[1:]
            if preexec_fn is not None:
                raise OSError(errno.ENOTSUP, 'preexec_fn is not supported in the sandbox')
            fds = {0: p2cread if p2cread != -1 else 0,
                   1: c2pwrite if c2pwrite != -1 else 1,
                   2: errwrite if errwrite != -1 else 2}
            for fd in pass_fds:
                fds[fd] = fd
            try:
                self.pid = spawn(args, env, cwd, fds, start_new_session or process_group is not None)
                self._child_created = True
            finally:
                if p2cread != -1 and p2cwrite != -1 and p2cread != getattr(self, '_devnull', None):
                    os.close(p2cread)
                if c2pwrite != -1 and c2pread != -1 and c2pwrite != getattr(self, '_devnull', None):
                    os.close(c2pwrite)
                if errwrite != -1 and errread != -1 and errwrite != getattr(self, '_devnull', None):
                    os.close(errwrite)
                if hasattr(self, '_devnull'):
                    os.close(self._devnull)
            self._closed_child_pipe_fds = True

        def _internal_poll(self, _deadstate=None, **ignored):
            if self.returncode is None:
                result = wait(self.pid, True)
                if result is not None:
                    self.returncode = result[1]
            return self.returncode

        def _wait(self, timeout):
            if self.returncode is not None:
                return self.returncode
            if timeout is None:
                self.returncode = wait(self.pid)[1]
                return self.returncode
            end = time.monotonic() + timeout
            delay = 0.0005
            while self._internal_poll() is None:
                remaining = end - time.monotonic()
                if remaining <= 0:
                    raise subprocess.TimeoutExpired(self.args, timeout)
                delay = min(delay * 2, remaining, 0.05)
                sleep(delay)
            return self.returncode

        def _communicate(self, input, endtime, orig_timeout):
            # One thread, blocking kernel calls: feed stdin in pieces, taking whatever
            # output is ready in between, so a child that writes before it has read all
            # of its input does not deadlock against us.
            if self.stdin and not self._communication_started:
                try:
                    self.stdin.flush()
                except BrokenPipeError:
                    pass
                self._save_input(input)
            elif not self._communication_started:
                self._input = None
            self._communication_started = True
            readers = {}
            if self.stdout:
                readers[self.stdout.fileno()] = ('stdout', self.stdout)
            if self.stderr and self.stderr is not self.stdout:
                readers[self.stderr.fileno()] = ('stderr', self.stderr)
            chunks = {'stdout': [], 'stderr': []}

            def drain(timeout_ms):
                if not readers:
                    return
                for fd in poll_read(list(readers), timeout_ms):
                    data = os.read(fd, 65536)
                    if data:
                        chunks[readers[fd][0]].append(data)
                    else:
                        readers.pop(fd)[1].close()

            if self.stdin:
                data = getattr(self, '_input', None) or b''
                if isinstance(data, memoryview):
                    data = data.tobytes()
                offset = 0
                try:
                    while offset < len(data):
                        drain(0)
                        offset += os.write(self.stdin.fileno(), data[offset:offset + 16384])
                except BrokenPipeError:
                    pass
                try:
                    self.stdin.close()
                except BrokenPipeError:
                    pass
            while readers:
                if endtime is not None:
                    remaining = self._remaining_time(endtime)
                    if remaining <= 0:
                        raise subprocess.TimeoutExpired(self.args, orig_timeout)
                    drain(max(1, int(remaining * 1000)))
                else:
                    drain(None)
            self.wait(timeout=self._remaining_time(endtime))
            out = b''.join(chunks['stdout']) if self.stdout else None
            err = b''.join(chunks['stderr']) if self.stderr else None
            if self.text_mode:
                if out is not None:
                    out = self._translate_newlines(out, self.stdout.encoding, self.stdout.errors)
                if err is not None:
                    err = self._translate_newlines(err, self.stderr.encoding, self.stderr.errors)
            return out, err

        def send_signal(self, sig):
            self.poll()
            if self.returncode is None:
                kill(self.pid, sig)

        Popen._execute_child = _execute_child
        Popen._internal_poll = _internal_poll
        Popen._wait = _wait
        Popen._communicate = _communicate
        Popen.send_signal = send_signal

    def install(start, env):
        os.pipe = pipe
        os.system = system
        os.waitpid = waitpid
        os.kill = kill
        pid, ppid = start['pid'], start['ppid']
        os.getpid = lambda: pid
        os.getppid = lambda: ppid
        time.sleep = sleep
        import subprocess
        install_subprocess(subprocess)
        sys.modules['_airlock_network'].install()
        sys.modules['_airlock_event_loop'].install()

    module.install = install
    module.spawn = spawn
    module.wait = wait
    module.sleep = sleep
    module.poll_read = poll_read
    sys.modules['_airlock_sandbox'] = module

_airlock_sandbox_module()
del _airlock_sandbox_module
