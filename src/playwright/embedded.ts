// An Airlock sandbox embedded in the page under test (embed.html in an iframe), driven from
// the test through the page: the same postMessage API a docs page uses (docs/embed.md).

import type { FrameLocator, Page } from '@playwright/test';

export interface EmbeddedRunResult {
  exitCode: number;
  errorClass: string | null;
  stdout: string;
  stderr: string;
}

export interface EmbeddedSandbox {
  /** Runs a command in the embed's terminal (the page shows it) and returns its result. */
  run(command: string): Promise<EmbeddedRunResult>;
  writeFile(path: string, content: string): Promise<void>;
  readFile(path: string): Promise<string>;
  /** An empty workspace and a fresh shell. */
  reset(): Promise<void>;
  /** The iframe, to look at the terminal (`frame.locator('.xterm-rows')`). */
  readonly frame: FrameLocator;
}

/** The embed refused a request or could not start. */
export class EmbeddedSandboxError extends Error {
  override readonly name = 'EmbeddedSandboxError';
}

let nextFrame = 1;

/**
 * Adds an Airlock sandbox to `page` (already loaded): an iframe of `${airlockUrl}embed.html`
 * that accepts requests from the page's origin, ready when this resolves.
 */
export async function embedSandbox(page: Page, airlockUrl: string, options: { rows?: number; timeoutMs?: number } = {}): Promise<EmbeddedSandbox> {
  const id = `airlock-sandbox-${nextFrame++}`;
  const started = await page.evaluate(
    async ({ id, base, rows, timeoutMs }) => {
      const target = new URL('embed.html', base);
      target.searchParams.set('origins', location.origin);
      target.searchParams.set('rows', String(rows));
      const frame = document.createElement('iframe');
      frame.id = id;
      frame.title = 'Airlock sandbox';
      frame.src = target.href;
      frame.style.cssText = 'width:100%;border:0;height:220px';
      const origin = target.origin;
      const waiting = new Map<number, (reply: { ok: boolean; value?: unknown; error?: string }) => void>();
      let counter = 1;
      const ready = new Promise<boolean>((resolve) => {
        addEventListener('message', (event: MessageEvent) => {
          const data = event.data as { airlock?: number; type?: string; id?: number; ok?: boolean; value?: unknown; error?: string; height?: number };
          if (event.origin !== origin || event.source !== frame.contentWindow || data?.airlock !== 1) return;
          if (data.type === 'ready') resolve(true);
          if (data.type === 'resize' && typeof data.height === 'number') frame.style.height = `${data.height}px`;
          if (data.type === 'result' && typeof data.id === 'number') waiting.get(data.id)?.({ ok: data.ok === true, value: data.value, error: data.error });
        });
        setTimeout(() => resolve(false), timeoutMs);
      });
      const request = (message: object): Promise<{ ok: boolean; value?: unknown; error?: string }> =>
        new Promise((resolve) => {
          const requestId = counter++;
          waiting.set(requestId, resolve);
          frame.contentWindow?.postMessage({ airlock: 1, id: requestId, ...message }, origin);
        });
      (window as unknown as Record<string, unknown>)[`__${id.replace(/-/g, '_')}`] = request;
      document.body.append(frame);
      return ready;
    },
    { id, base: airlockUrl, rows: options.rows ?? 8, timeoutMs: options.timeoutMs ?? 30_000 },
  );
  if (!started) throw new EmbeddedSandboxError(`the sandbox at ${airlockUrl}embed.html did not report ready (is the Airlock server running there?)`);
  const call = async <T>(message: object): Promise<T> => {
    const reply = await page.evaluate(({ key, message }) => (window as unknown as Record<string, (m: object) => Promise<{ ok: boolean; value?: unknown; error?: string }>>)[key]?.(message), { key: `__${id.replace(/-/g, '_')}`, message });
    if (reply === undefined) throw new EmbeddedSandboxError('the page under test was reloaded or left: embed the sandbox again');
    if (!reply.ok) throw new EmbeddedSandboxError(reply.error ?? 'the request failed');
    return reply.value as T;
  };
  return {
    run: (command) => call<EmbeddedRunResult>({ type: 'run', command }),
    writeFile: async (path, content) => void (await call<null>({ type: 'writeFile', path, content })),
    readFile: (path) => call<string>({ type: 'readFile', path }),
    reset: async () => void (await call<null>({ type: 'reset' })),
    frame: page.frameLocator(`#${id}`),
  };
}
