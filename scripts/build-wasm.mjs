#!/usr/bin/env node
// Builds every Rust program under crates/ to wasm32-wasi with Debian's rustc and offline
// Debian crates, asyncifies it with Binaryen, and writes public/wasm/ (plus the test
// programs under tests/wasm/) with a manifest of name, bytes and sha256.
//
// The output must be byte-identical wherever the repository is cloned: source paths are
// remapped, and wasm-opt runs with a fixed pass list. `npm test` rebuilds and compares.

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync, readdirSync, unlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';


const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const cratesDir = join(root, 'crates');
const targetDir = join(cratesDir, 'target');
const targets = JSON.parse(readFileSync(join(cratesDir, 'wasm-targets.json'), 'utf8'));

/**
 * Command names of a multicall crate, read the way its build.rs reads them: one file per
 * command in `dir`, named by the file (`_` for `-`, trailing `_` dropped) or by a first line
 * `//! command: NAME [ALIAS...]`.
 */
function commandsIn(dir) {
  const names = [];
  for (const file of readdirSync(join(root, dir)).filter((f) => f.endsWith('.rs')).sort()) {
    const text = readFileSync(join(root, dir, file), 'utf8');
    const header = text.split('\n').find((line) => line.startsWith('//! command:'));
    if (header) names.push(...header.slice('//! command:'.length).trim().split(/\s+/));
    else names.push(file.slice(0, -3).replace(/_+$/, '').replace(/_/g, '-'));
  }
  return names.sort();
}
/**
 * The module's imports, read from its import section: `{ module, field, kind, min }` where
 * `min` is the initial size of an imported memory or table.
 */
function moduleImports(bytes) {
  const imports = [];
  let offset = 8;
  const varuint = () => {
    let result = 0;
    let shift = 0;
    for (;;) {
      const byte = bytes[offset++];
      result += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7;
    }
  };
  const name = () => {
    const length = varuint();
    const text = bytes.subarray(offset, offset + length).toString('utf8');
    offset += length;
    return text;
  };
  /** limits: a flags byte, the minimum, and the maximum when flag 1 is set. */
  const limits = () => {
    const flags = varuint();
    const min = varuint();
    if (flags & 1) varuint();
    return min;
  };
  while (offset < bytes.length) {
    const id = bytes[offset++];
    const size = varuint();
    const end = offset + size;
    if (id !== 2) {
      offset = end;
      continue;
    }
    const count = varuint();
    for (let i = 0; i < count; i++) {
      const module = name();
      const field = name();
      const kind = bytes[offset++];
      let min;
      if (kind === 0) varuint();
      else if (kind === 1) { offset += 1; min = limits(); }
      else if (kind === 2) min = limits();
      else if (kind === 3) offset += 2;
      imports.push({ module, field, kind, min });
    }
    break;
  }
  return imports;
}

/**
 * A program may import only WASI preview1, the `airlock` module and `env.memory`; anything
 * else (e.g. a libc symbol wasi-libc lacks, which the linker silently turns into an `env`
 * import) would fail at instantiation.
 */
function checkImports(file, bytes) {
  const bad = moduleImports(bytes)
    .map((i) => `${i.module}.${i.field}`)
    .filter((n) => !n.startsWith('wasi_snapshot_preview1.') && !n.startsWith('airlock.') && n !== 'env.memory');
  if (bad.length > 0) {
    console.error(`build-wasm: ${file} imports ${bad.join(', ')}: not provided by the kernel (a libc function wasi-libc lacks?)`);
    process.exitCode = 1;
  }
}

/** Initial pages of the module's imported `env.memory` (browsers compile by streaming and never see the bytes). */
function importedMemoryMinPages(bytes) {
  const memory = moduleImports(bytes).find((i) => i.kind === 2 && i.module === 'env' && i.field === 'memory');
  if (memory === undefined) throw new Error('module does not import env.memory');
  return memory.min;
}

for (const target of targets) {
  if (target.commandsFrom) target.commands = commandsIn(target.commandsFrom);
}

const FOREIGN_TARGET = 'wasi-tests';

// `node scripts/build-wasm.mjs probe shell` builds only those binaries; the manifests keep
// the other entries as they were. `--out DIR` writes the outputs under DIR instead of the
// repository (same relative paths): `npm test` compares such a build with the committed
// files while other stages use them.
const args = process.argv.slice(2);
const outFlag = args.indexOf('--out');
const outRoot = outFlag < 0 ? root : resolve(args[outFlag + 1] ?? '');
if (outFlag >= 0) args.splice(outFlag, 2);
// `wasi-tests` names the foreign WASI test programs (built below, after the Rust targets);
// `packages` the sample package registry (scripts/build-packages.mjs, public/packages/).
const PACKAGES_TARGET = 'packages';
const buildForeign = args.length === 0 || args.includes(FOREIGN_TARGET);
const buildPackages = args.length === 0 || args.includes(PACKAGES_TARGET);
const only = args.filter((a) => a !== FOREIGN_TARGET && a !== PACKAGES_TARGET);
const selected = args.length === 0 ? targets : targets.filter((t) => only.includes(t.bin));
if (only.length > 0 && selected.length !== only.length) {
  console.error(`build-wasm: unknown target in ${only.join(' ')}; known: ${targets.map((t) => t.bin).join(' ')}`);
  process.exit(1);
}

const CARGO = '/usr/bin/cargo';
const CLANG = '/usr/bin/clang-14';
const RUSTC = '/usr/bin/rustc';

function requireTool(path, debianPackage) {
  if (!existsSync(path)) {
    console.error(`build-wasm: ${path} is missing; install it with: apt-get install -y ${debianPackage}`);
    process.exit(1);
  }
}

requireTool(CARGO, 'cargo');
requireTool(RUSTC, 'rustc libstd-rust-dev-wasm32 lld-14');
requireTool('/usr/bin/wasm-opt', 'binaryen');

const rustflags = [
  `--remap-path-prefix=${cratesDir}=/airlock/crates`,
  '--remap-path-prefix=/usr/share/cargo/registry=/registry',
  '-C', 'link-arg=--import-memory',
].join(' ');

// The stack pointer is exported so that the kernel can give an exited process's instance to
// the next process of the same program instead of instantiating again: it restores the
// memory image and resets this global (src/kernel/abi/wasm/wasm-program.ts). Not for the
// foreign programs below, which the kernel always instantiates afresh. Exporting a mutable
// global needs the mutable-globals feature (it changes nothing else in the code).
const kernelLinkFlags = '-C target-feature=+mutable-globals -C link-arg=--export=__stack_pointer';

function cargoBuild(extraFlags, packages) {
  const args = ['build', '--release', '--target', 'wasm32-wasi', ...packages.flatMap((p) => ['-p', p])];
  execFileSync(CARGO, args, {
    cwd: cratesDir,
    stdio: 'inherit',
    env: {
      ...process.env,
      RUSTC,
      CARGO_TARGET_DIR: targetDir,
      RUSTFLAGS: `${rustflags} ${kernelLinkFlags} ${extraFlags}`.trim(),
      CARGO_INCREMENTAL: '0',
      SOURCE_DATE_EPOCH: '0',
    },
  });
}

// Programs that need a larger stack (deep recursion) are built in their own pass, since
// the stack size is a link argument.
const groups = new Map();
for (const target of selected) {
  const flags = target.stackBytes ? `-C link-arg=-zstack-size=${target.stackBytes}` : '';
  if (!groups.has(flags)) groups.set(flags, []);
  groups.get(flags).push(target);
}

// Functions that never return (Rust's `-> !` panic and allocation-failure paths), left out
// of asyncify's instrumentation for the targets with `asyncifySkipNeverReturning`
// (legacy-mangled names, `*` a wildcard, matched by Binaryen's asyncify-removelist).
//
// Why: with panic = "abort" every bounds check, unwrap and Vec growth calls one of these,
// and each of them reaches `fd_write` (the panic message) through the panic hook. Asyncify
// therefore instrumented almost every function for a path that only ever ends the process:
// coreutils.wasm went from 4.24 MB to 3.36 MB without it (docs/coreutils.md), shell.wasm from
// 1.37 MB to 1.06 MB (measured on the same sources).
//
// Why it is safe: a function on this list cannot suspend correctly, but it also never
// returns to its caller. If a system call under it suspends (the panic hook's write to
// stderr when the kernel gives the host a turn), the uninstrumented code runs on to
// `abort`, which traps: the process ends exactly as before, with the same status; at worst
// that write of the panic message is lost. No caller ever resumes from a corrupted stack.
// Only add a function here if every path through it ends in a trap: never `process::exit`
// (its `proc_exit` may suspend, and the `unreachable` after it would then trap instead of
// exiting), never a panic *hook* (it returns).
//   core::panicking::*               panic, panic_fmt, panic_bounds_check, assert_failed, … (all `-> !`)
//   core::slice::index::*_fail*      slice index out of range (`-> !`), and their `_rt` bodies
//   core::str::slice_error_fail*     str index not on a char boundary (`-> !`)
//   core::result::unwrap_failed, core::option::expect_failed, copy_from_slice's len_mismatch_fail
//   alloc::raw_vec::capacity_overflow, alloc::alloc::handle_alloc_error (+ rt_error),
//     __rust_alloc_error_handler, __rg_oom, rust_oom (allocation failure: print, then abort)
//   Vec::{insert,remove,split_off}::assert_failed, generic_array::from_iter_length_fail
//   std::panicking::{begin_panic, begin_panic_handler, rust_panic_with_hook} and their
//     closures, rust_begin_unwind, rust_panic, std's __rust_end_short_backtrace (only ever
//     called by those two with a closure that panics)
// The list names the whole chain of each path because -O2 (before asyncify) inlines parts of
// it into others on the list; Binaryen then warns that those names match nothing, which is
// expected.
const NEVER_RETURNING = [
  '_ZN4core9panicking*',
  '_ZN4core5slice5index*_fail*',
  '_ZN4core3str16slice_error_fail*',
  '_ZN4core3str19slice_error_fail_rt*',
  '_ZN4core6result13unwrap_failed*',
  '_ZN4core6option13expect_failed*',
  '_ZN4core5slice29_$LT$impl$u20$$u5b$T$u5d$$GT$15copy_from_slice17len_mismatch_fail*',
  '_ZN5alloc7raw_vec17capacity_overflow*',
  '_ZN5alloc5alloc18handle_alloc_error*',
  '__rust_alloc_error_handler',
  '__rg_oom',
  'rust_oom',
  '_ZN5alloc3vec16Vec$LT$T$C$A$GT$6insert13assert_failed*',
  '_ZN5alloc3vec16Vec$LT$T$C$A$GT$6remove13assert_failed*',
  '_ZN5alloc3vec16Vec$LT$T$C$A$GT$9split_off13assert_failed*',
  '_ZN13generic_array21from_iter_length_fail*',
  '_ZN3std9panicking11begin_panic*',
  '_ZN3std9panicking19begin_panic_handler*',
  '_ZN3std9panicking20rust_panic_with_hook*',
  'rust_begin_unwind',
  'rust_panic',
  '_ZN3std10sys_common9backtrace26__rust_end_short_backtrace*',
];

const manifests = new Map();
for (const [flags, group] of groups) {
  if (group.length === 0) continue;
  cargoBuild(flags, [...new Set(group.map((t) => t.package))]);
  for (const target of group) {
    const input = join(targetDir, 'wasm32-wasi', 'release', `${target.bin}.wasm`);
    const output = join(outRoot, target.out);
    mkdirSync(dirname(output), { recursive: true });
    // -Oz after asyncify: 1% smaller than -Os on coreutils (4.51 MB against 4.55 MB).
    const asyncifyArgs = target.asyncifySkipNeverReturning ? [`--pass-arg=asyncify-removelist@${NEVER_RETURNING.join(',')}`] : [];
    // Binaryen inlines every function that has one caller, whatever its size (-ocimfs -1):
    // that undoes the #[inline(never)] that keeps rare, heavy arms out of a recursive
    // interpreter's hot function. The frame V8's optimizing tier gives a function grows
    // with all of its code (awk's eval: 18 KB against 200 B in the baseline tier), and a
    // wasm frame is on the JS stack (~1 MB): awk's d(500) ran out of stack once eval had
    // tiered up, after a few runs in one sandbox. Capped, eval's frame is 216 B.
    const inlineArgs = target.oneCallerInlineMaxSize === undefined ? [] : [`-ocimfs=${target.oneCallerInlineMaxSize}`];
    execFileSync('wasm-opt', [
      input, ...inlineArgs, '-O2', '--asyncify', ...asyncifyArgs, '-Oz',
      '--strip-debug', '--strip-producers', '--enable-bulk-memory',
      '-o', output,
    ], { stdio: 'inherit' });
    const bytes = readFileSync(output);
    checkImports(target.out, bytes);
    // A size budget (`maxBytes`) is part of the target: a build past it fails here.
    if (target.maxBytes !== undefined && bytes.length > target.maxBytes) {
      console.error(`build-wasm: ${target.out} is ${bytes.length} bytes, over its budget of ${target.maxBytes} (crates/wasm-targets.json)`);
      process.exitCode = 1;
    }
    const entry = {
      name: target.bin,
      file: target.out.split('/').pop(),
      bytes: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      commands: target.commands,
      memoryMinPages: importedMemoryMinPages(bytes),
      ...(target.asyncifyBytes ? { asyncifyBytes: target.asyncifyBytes } : {}),
    };
    const manifestPath = join(dirname(output), 'manifest.json');
    if (!manifests.has(manifestPath)) manifests.set(manifestPath, []);
    manifests.get(manifestPath).push(entry);
    console.log(`build-wasm: ${target.out} ${(bytes.length / 1024).toFixed(0)} KiB`);
  }
}

for (const [manifestPath, built] of manifests) {
  const dir = dirname(manifestPath);
  // Entries of this directory's targets that were not rebuilt keep their manifest entry.
  const previous = existsSync(manifestPath) ? JSON.parse(readFileSync(manifestPath, 'utf8')).modules : [];
  const builtNames = new Set(built.map((m) => m.name));
  const dirTargets = new Set(targets.filter((t) => dirname(join(outRoot, t.out)) === dir).map((t) => t.bin));
  const modules = [...built, ...previous.filter((m) => !builtNames.has(m.name) && dirTargets.has(m.name))];
  modules.sort((a, b) => a.name.localeCompare(b.name));
  // Remove stale outputs so the committed tree matches exactly what was built.
  const keep = new Set(modules.map((m) => m.file));
  for (const file of readdirSync(dir)) {
    if (file.endsWith('.wasm') && !keep.has(file)) unlinkSync(join(dir, file));
  }
  writeFileSync(manifestPath, JSON.stringify({ abi: 1, modules }, null, 2) + '\n');
}


// Foreign WASI test programs (tests/wasi/bin/): plain wasm32-wasi modules with their own
// memory, neither asyncified nor importing anything but WASI — what a program built
// elsewhere looks like (docs/wasi.md). C from tests/wasi/src with Debian's clang and
// wasi-libc; Rust from crates/wasi-programs with Debian's rustc. bad-import.c imports a
// function on purpose (--allow-undefined), to be refused.
if (buildForeign) {
  requireTool(CLANG, 'clang-14 wasi-libc libclang-rt-14-dev-wasm32');
  const sources = join(root, 'tests/wasi/src');
  const out = join(outRoot, 'tests/wasi/bin');
  mkdirSync(out, { recursive: true });
  const built = [];
  for (const file of readdirSync(sources).filter((f) => f.endsWith('.c')).sort()) {
    const name = file.slice(0, -2);
    const output = join(out, `${name}.wasm`);
    execFileSync(CLANG, [
      '--target=wasm32-wasi', '-O2', '-Wall', '-Wno-unused-result', `-ffile-prefix-map=${root}=/airlock`,
      ...(name === 'bad-import' ? ['-Wl,--allow-undefined'] : []),
      '-Wl,--strip-all', '-o', output, join(sources, file),
    ], { stdio: 'inherit', env: { ...process.env, SOURCE_DATE_EPOCH: '0' } });
    built.push(name);
  }
  execFileSync(CARGO, ['build', '--release', '--target', 'wasm32-wasi', '-p', 'wasi-programs'], {
    cwd: cratesDir,
    stdio: 'inherit',
    env: { ...process.env, RUSTC, CARGO_TARGET_DIR: join(targetDir, 'foreign'), RUSTFLAGS: rustflags.replace(' -C link-arg=--import-memory', ''), CARGO_INCREMENTAL: '0', SOURCE_DATE_EPOCH: '0' },
  });
  execFileSync('wasm-opt', [
    join(targetDir, 'foreign', 'wasm32-wasi', 'release', 'conformance-rs.wasm'), '-O2',
    '--strip-debug', '--strip-producers', '--enable-bulk-memory', '-o', join(out, 'conformance-rs.wasm'),
  ], { stdio: 'inherit' });
  built.push('conformance-rs');
  const keep = new Set(built.map((name) => `${name}.wasm`));
  for (const file of readdirSync(out)) if (file.endsWith('.wasm') && !keep.has(file)) unlinkSync(join(out, file));
  for (const name of built) console.log(`build-wasm: tests/wasi/bin/${name}.wasm ${(readFileSync(join(out, `${name}.wasm`)).length / 1024).toFixed(0)} KiB`);
}

// The sample package registry (public/packages/): upstream C programs, built by their own
// script into the same output root.
if (buildPackages) execFileSync(process.execPath, [join(root, 'scripts/build-packages.mjs'), '--out', outRoot], { stdio: 'inherit' });
