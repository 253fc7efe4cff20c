# Python source of `_airlock_event_loop`: the asyncio event loop of the sandbox. Pyodide
# installs its browser loop (WebLoop), which schedules through the JS bridge the prelude
# removes, so `asyncio.run` failed. The sandbox has no sockets to wait on, so the loop
# here is asyncio's own BaseEventLoop with a "selector" that only sleeps until the next
# timer (time.sleep, i.e. a kernel sleep: the run's deadline and Ctrl-C apply). Tasks,
# timers, gather, queues, locks, timeouts and async generators work as in CPython; what
# needs file descriptors readiness (loop.add_reader, asyncio subprocesses, streams over
# sockets) and thread pools (run_in_executor, to_thread) raises a clear error instead.

def _airlock_event_loop_module():
    import sys, types
    module = types.ModuleType('_airlock_event_loop')

    def install():
        import asyncio, asyncio.events, asyncio.runners, time

        class Clock:
            """Stands in for the selector: nothing to select, so wait for the next timer."""
            def select(self, timeout):
                if timeout is None:
                    # Nothing ready, no timer, and no I/O source that could ever wake us.
                    raise RuntimeError('asyncio: the event loop would wait forever: no task can make progress (no timers, and the sandbox loop has no I/O sources)')
                if timeout > 0:
                    time.sleep(timeout)
                return []

            def close(self):
                pass

        def unsupported(what):
            def method(self, *args, **kwargs):
                raise NotImplementedError(f'asyncio: {what} is not available in the sandbox (no sockets or threads; use subprocess, urllib or plain calls)')
            return method

        class SandboxEventLoop(asyncio.BaseEventLoop):
            def __init__(self):
                super().__init__()
                self._selector = Clock()

            def _process_events(self, event_list):
                pass

            def _write_to_self(self):
                pass

            add_reader = unsupported('loop.add_reader')
            add_writer = unsupported('loop.add_writer')
            run_in_executor = unsupported('loop.run_in_executor (threads)')
            subprocess_exec = unsupported('loop.subprocess_exec')
            subprocess_shell = unsupported('loop.subprocess_shell')

        class SandboxEventLoopPolicy(asyncio.events._BaseDefaultEventLoopPolicy):
            _loop_factory = SandboxEventLoop

        # Pyodide's WebLoop marks itself as the running loop for good (the browser drives
        # it); asyncio.run refuses to start while any loop is running.
        asyncio.events._set_running_loop(None)
        set_policy = getattr(asyncio.events, '_set_event_loop_policy', None) or asyncio.set_event_loop_policy
        set_policy(SandboxEventLoopPolicy())
        asyncio.run = asyncio.runners.run
        asyncio.SelectorEventLoop = SandboxEventLoop
        asyncio.EventLoop = SandboxEventLoop
        asyncio.new_event_loop = asyncio.events.new_event_loop

    module.install = install
    sys.modules['_airlock_event_loop'] = module

_airlock_event_loop_module()
del _airlock_event_loop_module
