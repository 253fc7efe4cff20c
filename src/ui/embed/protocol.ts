// The embed's postMessage API, typed. A parent page sends requests with an `id`; the embed
// answers each with a `result` carrying the same id, and sends events (ready, output, exit,
// resize) on its own. Every message carries `airlock: 1` so other traffic is ignored.

export type EmbedRequest =
  | { airlock: 1; id: number; type: 'run'; command: string }
  | { airlock: 1; id: number; type: 'writeFile'; path: string; content: string }
  | { airlock: 1; id: number; type: 'readFile'; path: string }
  | { airlock: 1; id: number; type: 'reset' }
  /** Makes each a command of the sandbox whose calls come to the parent (extension-call events). */
  | { airlock: 1; id: number; type: 'registerExtensions'; extensions: PageExtension[] }
  /** The parent's answer to an extension-call: output and status, or an error (status 1). */
  | { airlock: 1; id: number; type: 'extensionResult'; callId: number; stdout?: string; stderr?: string; exitCode?: number; error?: string };

/** An extension the embedding page answers (docs/extensions.md): the limits are optional. */
export interface PageExtension {
  name: string;
  description: string;
  timeoutMs?: number;
  maxStdinBytes?: number;
  maxOutputBytes?: number;
}

export type EmbedEvent =
  | { airlock: 1; type: 'ready'; tools: string[] }
  | { airlock: 1; type: 'result'; id: number; ok: true; value: unknown }
  | { airlock: 1; type: 'result'; id: number; ok: false; error: string }
  | { airlock: 1; type: 'output'; stream: 'stdout' | 'stderr'; text: string }
  | { airlock: 1; type: 'exit'; command: string; exitCode: number; errorClass: string | null }
  | { airlock: 1; type: 'resize'; height: number }
  /** Sandbox code ran a page extension: answer with an extensionResult request of the same callId. */
  | { airlock: 1; type: 'extension-call'; callId: number; name: string; args: string[]; env: Record<string, string>; cwd: string; stdin: string };

export const REQUEST_TYPES = ['run', 'writeFile', 'readFile', 'reset', 'registerExtensions', 'extensionResult'] as const;

/**
 * A message meant for the embed (`airlock: 1` and a numeric `id`) that is not a valid
 * request: the reason, for the error reply every request gets. Undefined when `data` is a
 * valid request, or is not addressed to the embed at all (then it is ignored).
 */
export function requestProblem(data: unknown): { id: number; error: string } | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const m = data as Record<string, unknown>;
  if (m.airlock !== 1 || typeof m.id !== 'number' || isEmbedRequest(data)) return undefined;
  if (typeof m.type !== 'string' || !(REQUEST_TYPES as readonly string[]).includes(m.type)) {
    return { id: m.id, error: `unknown request type ${JSON.stringify(m.type)}; the types are ${REQUEST_TYPES.join(', ')}` };
  }
  const needs: Record<string, string> = {
    run: 'a string `command`',
    writeFile: 'a string `path` and a string `content`',
    readFile: 'a string `path`',
    registerExtensions: 'an array `extensions` of { name, description } (strings)',
    extensionResult: 'a numeric `callId`, and strings `stdout`/`stderr`/`error` and a number `exitCode` where given',
  };
  return { id: m.id, error: `a ${m.type} request needs ${needs[m.type] ?? 'no fields'}` };
}

/** Whether `data` is a well-formed request. */
export function isEmbedRequest(data: unknown): data is EmbedRequest {
  if (typeof data !== 'object' || data === null) return false;
  const m = data as Record<string, unknown>;
  if (m.airlock !== 1 || typeof m.id !== 'number') return false;
  switch (m.type) {
    case 'run':
      return typeof m.command === 'string';
    case 'writeFile':
      return typeof m.path === 'string' && typeof m.content === 'string';
    case 'readFile':
      return typeof m.path === 'string';
    case 'reset':
      return true;
    case 'registerExtensions':
      return Array.isArray(m.extensions) && m.extensions.every((e: unknown) => typeof e === 'object' && e !== null && typeof (e as PageExtension).name === 'string' && typeof (e as PageExtension).description === 'string');
    case 'extensionResult':
      return (
        typeof m.callId === 'number' &&
        (m.stdout === undefined || typeof m.stdout === 'string') &&
        (m.stderr === undefined || typeof m.stderr === 'string') &&
        (m.error === undefined || typeof m.error === 'string') &&
        (m.exitCode === undefined || typeof m.exitCode === 'number')
      );
    default:
      return false;
  }
}

/**
 * The origins allowed to drive the embed: the `origins` URL parameter (comma separated,
 * `*` for any), else the embedding page's origin where the browser reports it
 * (location.ancestorOrigins), else none.
 */
export function allowedOrigins(param: string | null, ancestor: string | undefined): string[] {
  if (param !== null && param.trim() !== '') return param.split(',').map((o) => o.trim()).filter((o) => o.length > 0);
  return ancestor !== undefined && ancestor !== 'null' ? [ancestor] : [];
}

export function originAllowed(origin: string, allowed: readonly string[]): boolean {
  return allowed.includes('*') || allowed.includes(origin);
}
