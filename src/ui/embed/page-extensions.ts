// Extensions the embedding page answers (docs/extensions.md, docs/embed.md): each call is
// sent to the parent as an `extension-call` event (stdin as text, up to the extension's
// cap) and ends with the parent's `extensionResult` request of the same callId. The
// handler runs in the parent page; the sandbox sees a command like any other.

import type { ExtensionSpec } from '../../host/browser/index.js';
import type { EmbedEvent, EmbedRequest, PageExtension } from './protocol.js';

type Result = Extract<EmbedRequest, { type: 'extensionResult' }>;

export class PageExtensionCalls {
  private readonly waiting = new Map<number, (result: Result) => void>();
  private nextCallId = 1;

  /** Specs whose handlers ask the parent through `post`. */
  specs(extensions: PageExtension[], post: (event: EmbedEvent) => void): ExtensionSpec[] {
    return extensions.map((extension) => ({
      name: extension.name,
      description: extension.description,
      timeoutMs: extension.timeoutMs,
      maxStdinBytes: extension.maxStdinBytes,
      maxOutputBytes: extension.maxOutputBytes,
      handler: async ({ args, env, cwd, stdin, signal }) => {
        const callId = this.nextCallId++;
        const text = stdin.isTerminal ? '' : await stdin.text();
        const result = await new Promise<Result>((resolve, reject) => {
          this.waiting.set(callId, resolve);
          signal.addEventListener('abort', () => {
            this.waiting.delete(callId);
            reject(new Error('the call is over'));
          }, { once: true });
          post({ airlock: 1, type: 'extension-call', callId, name: extension.name, args, env, cwd, stdin: text });
        });
        if (result.error !== undefined) throw new Error(result.error);
        return { stdout: result.stdout ?? '', stderr: result.stderr ?? '', exitCode: result.exitCode ?? 0 };
      },
    }));
  }

  /** The parent's answer; one for a call that is over (or never was) is ignored. */
  answer(result: Result): void {
    const resolve = this.waiting.get(result.callId);
    this.waiting.delete(result.callId);
    resolve?.(result);
  }
}
