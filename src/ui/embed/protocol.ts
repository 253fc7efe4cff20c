// The embed's postMessage API, typed. A parent page sends requests with an `id`; the embed
// answers each with a `result` carrying the same id, and sends events (ready, output, exit,
// resize) on its own. Every message carries `airlock: 1` so other traffic is ignored.

export type EmbedRequest =
  | { airlock: 1; id: number; type: 'run'; command: string }
  | { airlock: 1; id: number; type: 'writeFile'; path: string; content: string }
  | { airlock: 1; id: number; type: 'readFile'; path: string }
  | { airlock: 1; id: number; type: 'reset' };

export type EmbedEvent =
  | { airlock: 1; type: 'ready'; tools: string[] }
  | { airlock: 1; type: 'result'; id: number; ok: true; value: unknown }
  | { airlock: 1; type: 'result'; id: number; ok: false; error: string }
  | { airlock: 1; type: 'output'; stream: 'stdout' | 'stderr'; text: string }
  | { airlock: 1; type: 'exit'; command: string; exitCode: number; errorClass: string | null }
  | { airlock: 1; type: 'resize'; height: number };

/** Whether `data` is a well-formed request (anything else is ignored). */
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
