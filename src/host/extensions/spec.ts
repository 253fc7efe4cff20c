// What a host application gives Sandbox.create({ extensions }) (docs/extensions.md), and
// the check of it: a name the shell and Python can call, a description for `--help`, a
// handler, and limits within EXTENSION_LIMITS. Checked once, at create, with errors that
// name the extension and the field.

import { EXTENSION_LIMITS } from '../../protocol/limits.js';

/** The command's stdin as the handler pulls it: in pieces, or whole (up to maxStdinBytes). */
export interface ExtensionInput extends AsyncIterable<Uint8Array> {
  /**
   * Stdin is the terminal: reading waits for the person to type (as `cat` does). A handler
   * that forwards the call elsewhere (server-hosted, embed) sends no stdin then.
   */
  isTerminal: boolean;
  /** All of stdin; rejects naming maxStdinBytes when there is more. */
  bytes(): Promise<Uint8Array>;
  /** All of stdin as UTF-8 text. */
  text(): Promise<string>;
}

/** The command's stdout or stderr as the handler streams to it. */
export interface ExtensionOutput {
  /** Resolves once the sandbox has taken the bytes (a full pipe holds the handler back). */
  write(data: string | Uint8Array): Promise<void>;
}

/** What a handler is called with. It sees this and nothing else of the sandbox. */
export interface ExtensionCall {
  /** The extension's name (argv[0]). */
  name: string;
  /** The command's arguments (argv[1..]). */
  args: string[];
  /** The command's environment and working directory inside the sandbox. */
  env: Record<string, string>;
  cwd: string;
  stdin: ExtensionInput;
  stdout: ExtensionOutput;
  stderr: ExtensionOutput;
  /** Aborted when the call is over for the sandbox: timed out, killed, or its reader gone. */
  signal: AbortSignal;
}

/** What a handler returns: output to add after anything it streamed, and the exit status. */
export interface ExtensionResult {
  stdout?: string | Uint8Array;
  stderr?: string | Uint8Array;
  /** 0–255; default 0. */
  exitCode?: number;
}

export type ExtensionHandler = (call: ExtensionCall) => ExtensionResult | void | Promise<ExtensionResult | void>;

/** One extension as the host application declares it. */
export interface ExtensionSpec {
  /** The command's name: letters, digits, `_` and `-`, not starting with a digit or `-`. */
  name: string;
  /** Printed by `NAME --help`. */
  description: string;
  handler: ExtensionHandler;
  /** Longest a call may take before it ends with status 124 (default 30 s). */
  timeoutMs?: number;
  /** Most stdin bytes the handler may read (default 1 MiB). */
  maxStdinBytes?: number;
  /** Most stdout + stderr bytes kept; the rest is cut with a note on stderr (default 1 MiB). */
  maxOutputBytes?: number;
}

/** A checked spec with every limit filled in. */
export type ResolvedExtension = Required<ExtensionSpec>;

export const EXTENSION_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;

function limit(spec: ExtensionSpec, field: 'timeoutMs' | 'maxStdinBytes' | 'maxOutputBytes', fallback: number, ceiling: number): number {
  const value = spec[field];
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0 || value > ceiling) {
    throw new RangeError(`extension ${spec.name}: ${field} must be a whole number from 1 to ${ceiling}, got ${String(value)}`);
  }
  return value;
}

/** Checks `specs`; throws a TypeError or RangeError naming the extension and the field. */
export function resolveExtensions(specs: readonly ExtensionSpec[] | undefined): ResolvedExtension[] {
  if (specs === undefined) return [];
  if (!Array.isArray(specs)) throw new TypeError('extensions must be an array');
  if (specs.length > EXTENSION_LIMITS.maxExtensions) throw new RangeError(`${specs.length} extensions; at most ${EXTENSION_LIMITS.maxExtensions} (maxExtensions)`);
  const seen = new Set<string>();
  return specs.map((spec) => {
    if (typeof spec?.name !== 'string' || !EXTENSION_NAME.test(spec.name)) {
      throw new TypeError(`extension name ${JSON.stringify(spec?.name)} is not a command name (letters, digits, _ and -, at most 64, not starting with a digit or -)`);
    }
    if (seen.has(spec.name)) throw new TypeError(`extension ${spec.name} is given twice`);
    seen.add(spec.name);
    if (typeof spec.handler !== 'function') throw new TypeError(`extension ${spec.name}: handler must be a function`);
    if (typeof spec.description !== 'string') throw new TypeError(`extension ${spec.name}: description must be a string`);
    const descriptionBytes = new TextEncoder().encode(spec.description).length;
    if (descriptionBytes > EXTENSION_LIMITS.descriptionBytes) {
      throw new RangeError(`extension ${spec.name}: description is ${descriptionBytes} bytes; at most ${EXTENSION_LIMITS.descriptionBytes}`);
    }
    return {
      name: spec.name,
      description: spec.description,
      handler: spec.handler,
      timeoutMs: limit(spec, 'timeoutMs', EXTENSION_LIMITS.defaultTimeoutMs, EXTENSION_LIMITS.maxTimeoutMs),
      maxStdinBytes: limit(spec, 'maxStdinBytes', EXTENSION_LIMITS.defaultStdinBytes, EXTENSION_LIMITS.maxStdinBytes),
      maxOutputBytes: limit(spec, 'maxOutputBytes', EXTENSION_LIMITS.defaultOutputBytes, EXTENSION_LIMITS.maxOutputBytes),
    };
  });
}
