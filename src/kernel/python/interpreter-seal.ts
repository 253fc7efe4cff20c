// The wall between a Python interpreter's wasm and the JS realm it runs in (issue 20).
//
// Pyodide's bridge lets Python code hold JS objects (JsProxy) and call JS functions; from
// there the realm's objects — Pyodide's API, Emscripten's Module, functions that import
// Node builtins — are a few attribute lookups away. Removing the `js` modules (the
// prelude) hides the obvious routes; this closes all of them at the one place every route
// must pass: the wasm imports. Whatever Python reaches (a stale JsProxy, `to_js`, a forged
// pointer through ctypes), acting on a JS object means a wasm import carrying it in or out.
//
// Once sealed (after our own setup, before user code):
// - only the imports in SEALED_IMPORTS may run — system calls, clocks, memory growth,
//   signals and the few conversions of plain values CPython's own code uses; any other
//   import is refused, and
// - no import may take or return a JS object or function (primitives only).
// A refused call throws SealBreach, which unwinds the whole interpreter: the process ends
// with a message naming the refusal, and the interpreter is never used again.
//
// Some imports are refused always, sealed or not: sockets (there are none in the sandbox;
// Pyodide would open real ones through node:net), system(), and dynamic loading of code.

/** A call across the seal was refused: the interpreter must not be used any more. */
export class SealBreach extends Error {
  /** Pyodide's mark for an error that already ended the interpreter: it lets it unwind quietly. */
  readonly pyodide_fatal_error = true;

  constructor(readonly importName: string, reason: string) {
    super(`the sandbox refused a call from Python into JavaScript (${importName}: ${reason})`);
    this.name = 'SealBreach';
  }
}

// Emscripten's errno numbering (WASI's), as its system calls return them (negated).
const ENOSYS = 52;

/** Replacements used sealed or not, with the answer a caller that handles failure expects. */
const ALWAYS_REFUSED: Record<string, () => unknown> = {
  __syscall_socket: () => -ENOSYS,
  __syscall_socketpair: () => -ENOSYS,
  __syscall_connect: () => -ENOSYS,
  __syscall_bind: () => -ENOSYS,
  __syscall_listen: () => -ENOSYS,
  __syscall_accept4: () => -ENOSYS,
  __syscall_getsockname: () => -ENOSYS,
  __syscall_getpeername: () => -ENOSYS,
  __syscall_getsockopt: () => -ENOSYS,
  __syscall_setsockopt: () => -ENOSYS,
  __syscall_sendto: () => -ENOSYS,
  __syscall_recvfrom: () => -ENOSYS,
  __syscall_sendmsg: () => -ENOSYS,
  __syscall_recvmsg: () => -ENOSYS,
  __syscall_shutdown: () => -ENOSYS,
  // Pyodide's Node socket helpers: "not a socket" (there are none).
  _try_fcntl64: () => 0,
  _try_shutdown: () => 0,
  _maybe_connect_async: () => null,
  _maybe_recvfrom_async: () => null,
  _maybe_sendto_async: () => null,
  _maybe_poll_async: () => null,
  // system(): no shell (Emscripten's would start a host process in Node).
  _emscripten_system: () => -1,
  // Loading a wasm library the program wrote: dlopen fails (NULL), as for a missing file.
  _dlopen_js: () => 0,
  _dlsym_js: () => 0,
};

/** The imports an interpreter may still call once sealed (with primitive values only). */
const SEALED_IMPORTS = new Set([
  // WASI and Emscripten system calls (the filesystem is the kernel's, kernel-fs.ts).
  'proc_exit', 'environ_sizes_get', 'environ_get', 'fd_close', 'fd_read', 'fd_write', 'fd_seek', 'fd_pread', 'fd_pwrite',
  'fd_sync', 'fd_fdstat_get', 'clock_res_get', 'clock_time_get', 'random_get',
  '__syscall_fcntl64', '__syscall_openat', '__syscall_faccessat', '__syscall_chdir', '__syscall_chmod', '__syscall_fchownat',
  '__syscall_dup', '__syscall_dup3', '__syscall_fchdir', '__syscall_fchmod', '__syscall_fchmodat2', '__syscall_fchown32',
  '__syscall_fdatasync', '__syscall_fstat64', '__syscall_stat64', '__syscall_newfstatat', '__syscall_lstat64',
  '__syscall_ftruncate64', '__syscall_getcwd', '__syscall_getdents64', '__syscall_mkdirat', '__syscall_mknodat',
  '__syscall_pipe', '__syscall_poll', '__syscall_fadvise64', '__syscall_fallocate', '__syscall_readlinkat',
  '__syscall_unlinkat', '__syscall_rmdir', '__syscall_renameat', '__syscall_statfs64', '__syscall_fstatfs64',
  '__syscall_symlinkat', '__syscall_truncate64', '__syscall_utimensat', '__syscall_ioctl', '__syscall_getuid32_js',
  '__syscall_umask_js',
  // Time, memory, exit, signals (KeyboardInterrupt), assertions.
  'emscripten_date_now', 'emscripten_get_now', '_tzset_js', '_localtime_js', '_gmtime_js', '_mktime_js', '_timegm_js',
  '_setitimer_js', '_mmap_js', '_munmap_js', '_msync_js', 'emscripten_resize_heap', 'emscripten_get_heap_max',
  '_abort_js', 'exit', '_emscripten_runtime_keepalive_clear', 'emscripten_runtime_keepalive_push',
  'emscripten_runtime_keepalive_pop', '_emscripten_get_progname', '__call_sighandler', '_Py_CheckEmscriptenSignals_Helper',
  '_Py_emscripten_runtime', '_PyEM_TrampolineCall_JS', '__assert_fail', '_emscripten_log_formatted', 'emscripten_log_impl_js',
  'emscripten_asm_const_int', 'fail_test', 'hiwire_invalid_ref_js',
  // Name lookups (Emscripten's own table of made-up addresses; nothing is resolved).
  'getaddrinfo', 'getnameinfo', 'getprotobyname', '_emscripten_lookup_name',
  // ctypes' libffi: calls into the interpreter's own function table.
  'ffi_call_js', 'ffi_closure_alloc_js', 'ffi_closure_free_js', 'ffi_prep_closure_loc_js',
  // Plain-value conversions (numbers, strings, the error marker; the check a return to JS
  // makes on the value it returns).
  'JsvError_Check', 'Jsv_GetError_import', 'JsvNum_fromInt', 'JsvNum_fromDouble', 'JsvNum_toInt', 'JsvBigInt_fromInt',
  'JsvBigInt_fromDigits', 'Jsv_BigIntToNum', 'JsvUTF8ToString', '_python2js_ascii', '_python2js_ucs1', '_python2js_ucs2',
  '_python2js_ucs4', 'can_run_sync_js', 'JsvNoValue_Check',
  ...Object.keys(ALWAYS_REFUSED),
]);

/**
 * The sealed imports whose effects a reset (interpreter-reset.ts) cannot put back: timers,
 * mmap, Emscripten's own pipes, ctypes callbacks (Emscripten's JS keeps the free table
 * slots), name lookups (its DNS table), exit and abort, EM_ASM code, the runtime's keepalive
 * counter. Every other sealed import changes only the wasm memory, Emscripten's descriptor
 * table and node cache, the cwd (all restored), MEMFS (watched) or nothing; a call to any
 * import outside that after the image was taken makes the worker unusable for another process.
 */
const UNRESTORABLE_IMPORTS = new Set([
  'proc_exit', '__syscall_pipe', '_setitimer_js', '_mmap_js', '_munmap_js', '_msync_js', '_abort_js', 'exit',
  '_emscripten_runtime_keepalive_clear', 'emscripten_runtime_keepalive_push', 'emscripten_runtime_keepalive_pop',
  '__assert_fail', '_emscripten_log_formatted', 'emscripten_log_impl_js', 'emscripten_asm_const_int', 'fail_test',
  'hiwire_invalid_ref_js', 'getaddrinfo', 'getnameinfo', 'getprotobyname', '_emscripten_lookup_name',
  'ffi_closure_alloc_js', 'ffi_closure_free_js', 'ffi_prep_closure_loc_js',
]);

type ImportFunction = (...args: unknown[]) => unknown;

function isPrimitive(value: unknown): boolean {
  return typeof value === 'object' ? value === null : typeof value !== 'function';
}

/** One interpreter's seal: wraps its imports at instantiation, closes when seal() is called. */
export class InterpreterSeal {
  private closed = false;
  /** The most the interpreter's memory may grow to (limits.memoryBytes); unlimited until set. */
  private memoryLimit = Infinity;
  /** The first refused call, for the message the process ends with. */
  breach: SealBreach | undefined;
  private tracking = false;
  /** The imports called since trackImports() whose effects a reset cannot undo. */
  readonly untrackedCalls = new Set<string>();

  /** Starts (again) the account of imports a reset could not undo (interpreter-reset.ts). */
  trackImports(): void {
    this.tracking = true;
    this.untrackedCalls.clear();
  }

  /**
   * Opens the seal again for the next process of a worker whose interpreter was reset to
   * its image, which holds nothing of the run the seal was closed for. Never after a breach.
   */
  reopen(): void {
    if (this.breach !== undefined) throw new Error('a breached interpreter cannot be reopened');
    this.closed = false;
    this.memoryLimit = Infinity;
  }

  get sealed(): boolean {
    return this.closed;
  }

  /**
   * Caps the interpreter's memory: a growth past `bytes` fails as a full heap does (malloc
   * returns NULL, Python raises MemoryError), and the heap maximum the interpreter sees is
   * at most `bytes`. Only lowers the cap.
   */
  limitMemory(bytes: number): void {
    this.memoryLimit = Math.min(this.memoryLimit, bytes);
  }

  /** Closes the seal (irreversible). */
  seal(): void {
    this.closed = true;
  }

  /**
   * Wraps every function import of `imports` (Emscripten's `getWasmImports()`: `env` and
   * `wasi_snapshot_preview1` are the same object) in place, so the glue's own references
   * and any side module see the guarded ones.
   */
  guardImports(imports: Record<string, unknown>): void {
    const done = new Set<object>();
    for (const key of ['env', 'wasi_snapshot_preview1']) {
      const namespace = imports[key];
      if (typeof namespace !== 'object' || namespace === null || done.has(namespace)) continue;
      done.add(namespace);
      const table = namespace as Record<string, unknown>;
      for (const [name, value] of Object.entries(table)) {
        const refused = ALWAYS_REFUSED[name];
        if (refused !== undefined) table[name] = Object.assign(refused, { sig: (value as { sig?: string } | undefined)?.sig });
        else if (typeof value === 'function') table[name] = this.guard(name, value as ImportFunction);
        // A JSPI import (WebAssembly.Suspending, only for run_sync) cannot be wrapped: it
        // is replaced by one that refuses, sealed or not (nothing of ours suspends).
        else if (typeof value === 'object' && value !== null && !(value instanceof WebAssembly.Memory) && !(value instanceof WebAssembly.Table) && !(value instanceof WebAssembly.Global)) {
          table[name] = () => this.refuse(name, 'stack switching is not available in the sandbox');
        }
      }
    }
  }

  private guard(name: string, original: ImportFunction): ImportFunction {
    const allowed = SEALED_IMPORTS.has(name);
    const restorable = allowed && !UNRESTORABLE_IMPORTS.has(name);
    // A plain function: the wrapper passes on whatever `this` the glue calls it with.
    const seal = this;
    // Memory growth answers "no" past the limit, as Emscripten does at its own maximum.
    const call = name === 'emscripten_resize_heap' ? this.capGrowth(original) : name === 'emscripten_get_heap_max' ? this.capMaximum(original) : original;
    const guarded = function (this: unknown, ...args: unknown[]): unknown {
      if (seal.tracking && !restorable) seal.untrackedCalls.add(name);
      if (!seal.closed) return call.apply(this, args);
      if (!allowed) seal.refuse(name, 'not callable once user code runs');
      for (const arg of args) if (!isPrimitive(arg)) seal.refuse(name, 'a JavaScript object was passed');
      const result = call.apply(this, args);
      if (!isPrimitive(result)) seal.refuse(name, 'a JavaScript object was returned');
      return result;
    };
    return Object.assign(guarded, original);
  }

  private capGrowth(resize: ImportFunction): ImportFunction {
    const seal = this;
    return Object.assign(function (this: unknown, ...args: unknown[]): unknown {
      return Number(args[0]) >>> 0 > seal.memoryLimit ? 0 : resize.apply(this, args);
    }, resize);
  }

  private capMaximum(maximum: ImportFunction): ImportFunction {
    const seal = this;
    return Object.assign(function (this: unknown, ...args: unknown[]): unknown {
      return Math.min(Number(maximum.apply(this, args)), seal.memoryLimit);
    }, maximum);
  }

  private refuse(name: string, reason: string): never {
    const breach = new SealBreach(name, reason);
    this.breach ??= breach;
    throw breach;
  }
}
