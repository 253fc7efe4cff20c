#!/usr/bin/env node
// Builds the sample package registry (public/packages/, docs/packages.md): real programs,
// from their upstream C sources, to plain wasm32-wasi modules with Debian's clang-14 and
// wasi-libc, plus the registry index (index.json) that lists them with their sha256.
//
//   lua      Lua 5.2.4's interpreter (lua.c), from Debian's librust-lua52-sys-dev
//   sqlite3  SQLite 3.52.0's shell (shell.c + sqlite3.c), from the npm package sqlite3@6.0.1
//   lz4      LZ4 1.9.2's command line tool (lz4cli.c, also unlz4 and lz4cat), from the npm package lz4@0.6.5
//
// The sources are installed by scripts/setup.mjs (the Debian package, and `npm pack` of the
// npm tarballs, checked against their integrity hashes). The output is byte-identical
// wherever the repository is cloned: fixed flags, source paths mapped to /src/NAME, no
// timestamps, stripped. scripts/build-wasm.mjs runs this script (`node
// scripts/build-wasm.mjs packages` builds only these), so the wasm stage of `npm test`
// rebuilds and compares them.
//
//   node scripts/build-packages.mjs [--out DIR]   (writes DIR/public/packages/)

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NPM_SOURCES, ensureNpmSources } from './setup.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CLANG = '/usr/bin/clang-14';
const shims = join(root, 'scripts/packages');
const LUA_SOURCES = '/usr/share/cargo/registry/lua52-sys-0.1.2/lua/src';

const args = process.argv.slice(2);
const outFlag = args.indexOf('--out');
const outRoot = outFlag < 0 ? root : resolve(args[outFlag + 1] ?? '');
const outDir = join(outRoot, 'public/packages');

function fail(message) {
  console.error(`build-packages: ${message}`);
  process.exit(1);
}

if (!existsSync(CLANG)) fail(`${CLANG} is missing; install it with: apt-get install -y clang-14 wasi-libc libclang-rt-14-dev-wasm32`);
if (!existsSync(LUA_SOURCES)) fail(`${LUA_SOURCES} is missing; install it with: apt-get install -y librust-lua52-sys-dev (npm test installs it: scripts/setup.mjs BUILD_PACKAGES)`);

/** The npm tarballs, unpacked once into crates/target/package-sources/NAME-VERSION/. */
const sourcesDir = join(root, 'crates/target/package-sources');
const tarballs = ensureNpmSources(sourcesDir);
function unpacked(spec, inner) {
  const dir = join(sourcesDir, spec.replace('@', '-'));
  if (!existsSync(join(dir, '.done'))) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    execFileSync('tar', ['-xzf', tarballs[spec], '-C', dir]);
    for (const archive of inner) execFileSync('tar', ['-xzf', join(dir, archive), '-C', dir]);
    writeFileSync(join(dir, '.done'), '');
  }
  return dir;
}
const sqlite = join(unpacked('sqlite3@6.0.1', ['package/deps/sqlite-autoconf-3520000.tar.gz']), 'sqlite-autoconf-3520000');
const lz4 = join(unpacked('lz4@0.6.5', []), 'package/deps/lz4');

/**
 * What every program gets: wasi-libc's emulated signal(), clock() and getpid() (plain C
 * over WASI, no import), the shims for the POSIX calls wasi-libc lacks, and 1 MiB of stack
 * (the interpreters recurse).
 */
const COMMON_FLAGS = ['--target=wasm32-wasi', '-O2', '-w', '-D_WASI_EMULATED_SIGNAL', '-D_WASI_EMULATED_PROCESS_CLOCKS', '-D_WASI_EMULATED_GETPID', '-isystem', join(shims, 'include'), '-include', 'wasi-shims.h', `-ffile-prefix-map=${root}=/airlock`];
const LIBS = ['-lwasi-emulated-signal', '-lwasi-emulated-process-clocks', '-lwasi-emulated-getpid'];

const PROGRAMS = [
  {
    name: 'lua',
    version: '5.2.4',
    description: 'Lua 5.2.4, the scripting language: the standalone interpreter (lua -e CODE, lua FILE)',
    commands: ['lua'],
    source: LUA_SOURCES,
    files: readdirSync(LUA_SOURCES).filter((f) => f.endsWith('.c') && f !== 'luac.c').sort(),
    // Lua raises errors with longjmp: clang lowers setjmp/longjmp to WebAssembly exception
    // handling (scripts/packages/include/setjmp.h, sjlj.c). LUA_USE_MKSTEMP: os.tmpname
    // with mkstemp, as on Linux.
    flags: ['-mexception-handling', '-mllvm', '-wasm-enable-sjlj', '-DLUA_COMPAT_ALL', '-DLUA_USE_MKSTEMP'],
    extra: ['sjlj.c'],
  },
  {
    name: 'sqlite3',
    version: '3.52.0',
    description: "SQLite 3.52.0's command-line shell (sqlite3 [DB] [SQL]); databases are files in the workspace",
    commands: ['sqlite3'],
    source: sqlite,
    files: ['shell.c', 'sqlite3.c'],
    // sqlite3.c's own WASI configuration (SQLITE_WASI: no threads, no extension loading,
    // no locking); the shell has no system() to run .system and .edit with.
    flags: ['-Os', '-DSQLITE_NOHAVE_SYSTEM', '-DSQLITE_ENABLE_MATH_FUNCTIONS', '-DSQLITE_OMIT_LOAD_EXTENSION', '-DSQLITE_THREADSAFE=0'],
    extra: [],
  },
  {
    name: 'lz4',
    version: '1.9.2',
    description: "LZ4 1.9.2's command-line tool: fast compression (lz4, unlz4, lz4cat)",
    commands: ['lz4', 'unlz4', 'lz4cat'],
    source: lz4,
    files: ['programs/bench.c', 'programs/datagen.c', 'programs/lz4cli.c', 'programs/lz4io.c', 'lib/lz4.c', 'lib/lz4frame.c', 'lib/lz4hc.c', 'lib/xxhash.c'],
    // WASI is POSIX enough for its directory listing (-r), which it only enables on
    // systems it knows (programs/platform.h).
    flags: ['-Ilib', '-DPLATFORM_POSIX_VERSION=200809L'],
    extra: [],
  },
];

mkdirSync(outDir, { recursive: true });
const entries = [];
for (const program of PROGRAMS) {
  const objects = mkdtempSync(join(tmpdir(), `airlock-pkg-${program.name}-`));
  try {
    const units = [...program.files.map((f) => join(program.source, f)), ...program.extra.map((f) => join(shims, f)), join(shims, 'wasi-shims.c')];
    const built = [];
    for (const [i, unit] of units.entries()) {
      const object = join(objects, `${String(i).padStart(2, '0')}-${basename(unit, '.c')}.o`);
      execFileSync(CLANG, [...COMMON_FLAGS, `-ffile-prefix-map=${program.source}=/src/${program.name}`, ...program.flags, '-c', '-o', object, unit], {
        cwd: program.source,
        stdio: 'inherit',
        env: { ...process.env, SOURCE_DATE_EPOCH: '0' },
      });
      built.push(object);
    }
    // Linked at -O0: with -O1 and up clang runs Binaryen's wasm-opt on the result, which
    // refuses exception handling unless told; the objects are already optimized.
    const file = `${program.name}-${program.version}.wasm`;
    execFileSync(CLANG, ['--target=wasm32-wasi', '-O0', '-Wl,--strip-all', '-Wl,-z,stack-size=1048576', '-o', join(outDir, file), ...built, ...LIBS], {
      stdio: 'inherit',
      env: { ...process.env, SOURCE_DATE_EPOCH: '0' },
    });
    const bytes = readFileSync(join(outDir, file));
    entries.push({
      name: program.name,
      version: program.version,
      description: program.description,
      url: file,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      size: bytes.length,
      commands: program.commands,
    });
    console.log(`build-packages: public/packages/${file} ${(bytes.length / 1024).toFixed(0)} KiB`);
  } finally {
    rmSync(objects, { recursive: true, force: true });
  }
}
const keep = new Set(entries.map((e) => e.url));
for (const file of readdirSync(outDir)) if (file.endsWith('.wasm') && !keep.has(file)) unlinkSync(join(outDir, file));
// Package URLs are relative to the index (docs/packages.md), so the folder works from any host.
writeFileSync(join(outDir, 'index.json'), JSON.stringify({ packages: entries }, null, 2) + '\n');
console.log(`build-packages: public/packages/index.json (${entries.length} packages; sources: ${NPM_SOURCES.map((s) => s.spec).join(', ')}, Debian librust-lua52-sys-dev)`);
