// A foreign wasm module, read at the level of its sections: what it imports (only WASI
// preview1 functions, with the types the spec gives them, are provided: anything else is
// refused naming the import), what memory it defines, and the one change made before it
// runs — its memory becomes an imported SHARED memory capped at the sandbox's limit, so
// that the kernel thread reads and writes it while the program's own worker waits in a
// system call (docs/architecture.md §2, "Foreign programs"). Nothing inside the code
// section changes: a module has one memory, index 0, defined or imported alike.
//
// The bytes come from a file in the sandbox, so every read is bounds-checked; the module
// has already been validated by WebAssembly.compile when this runs, and the rewritten
// module is validated again by compiling it.

import { WASI_INDEX, WASI_MODULE, WASI_SIGNATURES } from './wasi-signatures.js';

/** The import under which a rewritten module gets its memory. */
export const SHARED_MEMORY_IMPORT = { module: 'airlock_foreign', name: 'memory' } as const;

const SECTION_TYPE = 1;
const SECTION_IMPORT = 2;
const SECTION_MEMORY = 5;
const KIND_NAMES = ['function', 'table', 'memory', 'global', 'tag'];
const VALTYPES: Record<number, string> = { 0x7f: 'i', 0x7e: 'I', 0x7d: 'f', 0x7c: 'F', 0x7b: 'v', 0x70: 'r', 0x6f: 'r' };

/** Why a module cannot run as a foreign program; the message names the import or part. */
export class ForeignModuleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ForeignModuleError';
  }
}

/** What a foreign module needs to run. */
export interface ForeignModuleShape {
  /** Its memory's initial and maximum pages; undefined when it defines none. */
  memory: { min: number; max: number | undefined } | undefined;
}

interface Section {
  id: number;
  /** Offsets of the whole section (id byte included) and of its contents. */
  start: number;
  contentStart: number;
  end: number;
}

class Reader {
  constructor(
    readonly bytes: Uint8Array,
    public offset: number,
    private readonly end: number,
  ) {}

  byte(): number {
    if (this.offset >= this.end) throw new ForeignModuleError('malformed module: unexpected end of a section');
    return this.bytes[this.offset++] as number;
  }

  varuint(): number {
    let result = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      const byte = this.byte();
      result += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return result;
    }
    throw new ForeignModuleError('malformed module: integer too long');
  }

  name(): string {
    const length = this.varuint();
    if (this.offset + length > this.end) throw new ForeignModuleError('malformed module: name past the end of its section');
    const text = new TextDecoder().decode(this.bytes.subarray(this.offset, this.offset + length));
    this.offset += length;
    return text;
  }

  limits(): { flags: number; min: number; max: number | undefined } {
    const flags = this.varuint();
    const min = this.varuint();
    const max = (flags & 1) !== 0 ? this.varuint() : undefined;
    return { flags, min, max };
  }
}

function sectionsOf(bytes: Uint8Array): Section[] {
  if (bytes.length < 8 || bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) throw new ForeignModuleError('not a wasm module');
  if (bytes[4] !== 1 || bytes[5] !== 0 || bytes[6] !== 0 || bytes[7] !== 0) throw new ForeignModuleError('not a wasm module of version 1 (a component or a newer format)');
  const sections: Section[] = [];
  let offset = 8;
  while (offset < bytes.length) {
    const start = offset;
    const head = new Reader(bytes, offset, bytes.length);
    const id = head.byte();
    const size = head.varuint();
    const contentStart = head.offset;
    const end = contentStart + size;
    if (end > bytes.length) throw new ForeignModuleError('malformed module: section past the end of the file');
    sections.push({ id, start, contentStart, end });
    offset = end;
  }
  return sections;
}

/** The signatures of the type section, as WASI_SIGNATURES writes them ('iIi' -> 'i'). */
function readTypes(bytes: Uint8Array, section: Section | undefined): Array<{ params: string; results: string }> {
  if (section === undefined) return [];
  const reader = new Reader(bytes, section.contentStart, section.end);
  const count = reader.varuint();
  const types: Array<{ params: string; results: string }> = [];
  const valtypes = (): string => {
    let out = '';
    for (let n = reader.varuint(); n > 0; n--) out += VALTYPES[reader.byte()] ?? '?';
    return out;
  };
  for (let i = 0; i < count; i++) {
    // Types other than plain function types (GC proposal forms) are not WASI programs' business.
    if (reader.byte() !== 0x60) throw new ForeignModuleError('unsupported module: a type that is not a function type');
    const params = valtypes();
    types.push({ params, results: valtypes() });
  }
  return types;
}

/**
 * Checks that `bytes` (a module that compiles) imports nothing but WASI preview1 functions
 * of the right types and defines at most one 32-bit memory; returns its memory.
 */
export function inspectForeignModule(bytes: Uint8Array): ForeignModuleShape {
  const sections = sectionsOf(bytes);
  const types = readTypes(bytes, sections.find((s) => s.id === SECTION_TYPE));
  const imports = sections.find((s) => s.id === SECTION_IMPORT);
  if (imports !== undefined) {
    const reader = new Reader(bytes, imports.contentStart, imports.end);
    for (let n = reader.varuint(); n > 0; n--) {
      const module = reader.name();
      const name = reader.name();
      const kind = reader.byte();
      const what = `${module}.${name}`;
      if (kind !== 0) throw new ForeignModuleError(`imports ${what} (a ${KIND_NAMES[kind] ?? 'thing'}), which Airlock does not provide: a foreign program may import only ${WASI_MODULE} functions`);
      const type = types[reader.varuint()];
      if (module !== WASI_MODULE) throw new ForeignModuleError(`imports ${what}, which Airlock does not provide: a foreign program may import only ${WASI_MODULE} functions`);
      const index = WASI_INDEX.get(name);
      if (index === undefined) throw new ForeignModuleError(`imports ${what}, which is not a WASI preview1 function`);
      const signature = (WASI_SIGNATURES[index] as readonly [string, { params: string; returnsErrno: boolean }])[1];
      const results = signature.returnsErrno ? 'i' : '';
      if (type === undefined || type.params !== signature.params || type.results !== results) {
        throw new ForeignModuleError(`imports ${what} with the type (${type?.params ?? '?'}) -> (${type?.results ?? '?'}); WASI preview1 gives it (${signature.params}) -> (${results}) (i: i32, I: i64)`);
      }
    }
  }
  const memorySection = sections.find((s) => s.id === SECTION_MEMORY);
  if (memorySection === undefined) return { memory: undefined };
  const reader = new Reader(bytes, memorySection.contentStart, memorySection.end);
  const count = reader.varuint();
  if (count === 0) return { memory: undefined };
  if (count > 1) throw new ForeignModuleError('defines several memories (multi-memory), which Airlock does not run');
  const { flags, min, max } = reader.limits();
  if ((flags & ~1) !== 0) throw new ForeignModuleError('defines a shared or 64-bit memory, which Airlock does not run');
  return { memory: { min, max } };
}

function varuintBytes(value: number): number[] {
  const out: number[] = [];
  let rest = value;
  do {
    let byte = rest % 128;
    rest = Math.floor(rest / 128);
    if (rest > 0) byte |= 0x80;
    out.push(byte);
  } while (rest > 0);
  return out;
}

function nameBytes(text: string): number[] {
  const encoded = new TextEncoder().encode(text);
  return [...varuintBytes(encoded.length), ...encoded];
}

function sectionBytes(id: number, content: Uint8Array): Uint8Array {
  const head = [id, ...varuintBytes(content.length)];
  const out = new Uint8Array(head.length + content.length);
  out.set(head);
  out.set(content, head.length);
  return out;
}

/**
 * The module with its memory (of `shape`) turned into the import SHARED_MEMORY_IMPORT,
 * shared, of at most `maxPages`. A module without a memory is returned as it is.
 */
export function shareMemory(bytes: Uint8Array, shape: ForeignModuleShape, maxPages: number): Uint8Array {
  if (shape.memory === undefined) return bytes;
  const sections = sectionsOf(bytes);
  const max = Math.min(maxPages, shape.memory.max ?? maxPages);
  const memoryImport = [
    ...nameBytes(SHARED_MEMORY_IMPORT.module), ...nameBytes(SHARED_MEMORY_IMPORT.name),
    2, 0x03, ...varuintBytes(shape.memory.min), ...varuintBytes(max),
  ];
  const parts: Uint8Array[] = [bytes.subarray(0, 8)];
  const existing = sections.find((s) => s.id === SECTION_IMPORT);
  let inserted = false;
  for (const section of sections) {
    if (section.id === SECTION_MEMORY) continue;
    if (!inserted && existing === undefined && section.id !== 0 && section.id > SECTION_IMPORT) {
      parts.push(sectionBytes(SECTION_IMPORT, new Uint8Array([1, ...memoryImport])));
      inserted = true;
    }
    if (section.id === SECTION_IMPORT) {
      const reader = new Reader(bytes, section.contentStart, section.end);
      const count = reader.varuint();
      const entries = bytes.subarray(reader.offset, section.end);
      const content = new Uint8Array([...varuintBytes(count + 1), ...entries, ...memoryImport]);
      parts.push(sectionBytes(SECTION_IMPORT, content));
      inserted = true;
      continue;
    }
    parts.push(bytes.subarray(section.start, section.end));
  }
  if (!inserted) parts.push(sectionBytes(SECTION_IMPORT, new Uint8Array([1, ...memoryImport])));
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
