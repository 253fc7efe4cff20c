// The embeddable sandbox (embed.html): a terminal, optionally a small editor for one file,
// configured by URL parameters and driven by the parent page through postMessage. No
// persistence unless `persist=1`; the height follows the content (resize events).

import { useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { TerminalPane } from '../components/terminal-pane.js';
import type { PlaygroundController } from '../playground/controller.js';
import type { ShellHost, TerminalSession } from '../terminal/terminal-session.js';
import { sandboxShellHost } from '../terminal/sandbox-host.js';
import { useDarkMode } from '../use-dark-mode.js';
import type { RunResult } from '../../host/browser/index.js';
import { isEmbedRequest, originAllowed, requestProblem, type EmbedEvent, type EmbedRequest } from './protocol.js';
import { PageExtensionCalls } from './page-extensions.js';

export interface EmbedConfig {
  origins: string[];
  /** A file shown in an editor above the terminal, with a Run button. */
  editorFile: string | null;
  rows: number;
  /** A command run once the sandbox is ready. */
  command: string | null;
}

type ExitEvent = Extract<EmbedEvent, { type: 'exit' }>;
type Waiter = (exit: { event: ExitEvent; result: RunResult | undefined }) => void;

export function EmbedApp({ controller, config }: { controller: PlaygroundController; config: EmbedConfig }) {
  const view = useSyncExternalStore(controller.subscribe, controller.getView);
  const dark = useDarkMode();
  const session = useRef<TerminalSession | null>(null);
  const exitWaiters = useRef<Waiter[]>([]);
  /** Runs waiting for the command in progress to end. */
  const idleWaiters = useRef<Array<() => void>>([]);
  const [source, setSource] = useState('');
  /** Calls of the embedding page's extensions waiting for its answer. */
  const extensionCalls = useRef(new PageExtensionCalls());
  const sandbox = view.phase === 'ready' ? controller.sandbox : undefined;

  const post = (event: EmbedEvent, origin?: string): void => {
    const target = origin ?? (config.origins.includes('*') ? '*' : config.origins[0]);
    if (target !== undefined && window.parent !== window) window.parent.postMessage(event, target);
  };

  const host = useMemo<ShellHost | null>(
    () =>
      sandbox === undefined
        ? null
        : sandboxShellHost(controller, sandbox, {
            onOutput: (stream, text) => post({ airlock: 1, type: 'output', stream, text }),
            onExit: (command, result) => {
              const event = { airlock: 1, type: 'exit', command, exitCode: result?.exitCode ?? 1, errorClass: result?.errorClass ?? null } as const;
              post(event);
              const waiter = exitWaiters.current.shift();
              waiter?.({ event, result });
              for (const wake of idleWaiters.current.splice(0)) wake();
            },
          }),
    [sandbox, controller],
  );

  /**
   * Runs a line in the terminal (so the reader sees it) and resolves with its exit. While
   * another command runs (sent earlier, or typed by the reader) it waits for its turn.
   */
  const runInTerminal = async (command: string): Promise<{ event: ExitEvent; result: RunResult | undefined }> => {
    for (;;) {
      const current = session.current;
      if (current === null) throw new Error('the sandbox is not ready yet');
      if (!current.busy) {
        const exit = new Promise<{ event: ExitEvent; result: RunResult | undefined }>((resolve) => exitWaiters.current.push(resolve));
        if (current.runLine(command)) return exit;
        exitWaiters.current.pop();
      }
      await new Promise<void>((resolve) => idleWaiters.current.push(resolve));
    }
  };

  const handle = async (request: EmbedRequest): Promise<unknown> => {
    const current = controller.sandbox;
    if (current === undefined) throw new Error('the sandbox is not ready yet');
    switch (request.type) {
      case 'run': {
        const { event, result } = await runInTerminal(request.command);
        return { exitCode: event.exitCode, errorClass: event.errorClass, stdout: result?.stdout ?? '', stderr: result?.stderr ?? '' };
      }
      case 'writeFile':
        await current.writeFile(request.path, request.content, { parents: true });
        controller.touchFiles();
        return null;
      case 'readFile':
        return current.readTextFile(request.path);
      case 'reset':
        await controller.reset();
        return null;
      case 'registerExtensions':
        await controller.setPageExtensions(extensionCalls.current.specs(request.extensions, (event) => post(event)));
        return null;
      case 'extensionResult':
        extensionCalls.current.answer(request);
        return null;
    }
  };

  useEffect(() => {
    const onMessage = (event: MessageEvent): void => {
      if (event.source !== window.parent) return;
      const problem = requestProblem(event.data);
      if (problem === undefined && !isEmbedRequest(event.data)) return;
      if (!originAllowed(event.origin, config.origins)) {
        console.warn(`airlock embed: ignored a message from ${event.origin}; allowed: ${config.origins.join(', ') || 'none (set ?origins=)'}`);
        return;
      }
      // Every request gets a reply: one that is not valid, an error saying why.
      if (problem !== undefined) {
        post({ airlock: 1, type: 'result', id: problem.id, ok: false, error: problem.error }, event.origin);
        return;
      }
      if (!isEmbedRequest(event.data)) return;
      const request = event.data;
      handle(request).then(
        (value) => post({ airlock: 1, type: 'result', id: request.id, ok: true, value }, event.origin),
        (error: unknown) => post({ airlock: 1, type: 'result', id: request.id, ok: false, error: error instanceof Error ? error.message : String(error) }, event.origin),
      );
    };
    window.addEventListener('message', onMessage);
    return () => window.removeEventListener('message', onMessage);
  });

  useEffect(() => {
    if (sandbox === undefined) return;
    post({ airlock: 1, type: 'ready', tools: sandbox.installedTools });
    if (config.editorFile !== null) void sandbox.readTextFile(config.editorFile).then(setSource, () => setSource(''));
    if (config.command !== null) setTimeout(() => void runInTerminal(config.command ?? '').catch(() => undefined), 0);
  }, [sandbox]);

  // Auto-size: the parent sets the iframe's height from these events.
  useEffect(() => {
    // The content's own height: the document's scrollHeight never drops below the iframe's
    // current height, so it could only ever grow.
    const root = document.getElementById('root') ?? document.body;
    const report = (): void => post({ airlock: 1, type: 'resize', height: Math.ceil(root.getBoundingClientRect().height) });
    const observer = new ResizeObserver(report);
    observer.observe(root);
    report();
    return () => observer.disconnect();
  }, []);

  const runEditor = async (): Promise<void> => {
    if (config.editorFile === null || sandbox === undefined) return;
    await sandbox.writeFile(config.editorFile, source, { parents: true });
    const interpreter = config.editorFile.endsWith('.py') ? 'python3' : 'bash';
    await runInTerminal(`${interpreter} ${config.editorFile}`).catch(() => undefined);
  };

  return (
    <div className={`embed ${dark ? 'dark' : 'light'}`}>
      {view.phase === 'loading' ? (
        <div className="loading" role="progressbar" aria-label="Loading the sandbox">
          <div className="loading-fill" style={{ width: `${view.progress && view.progress.total > 0 ? Math.round((view.progress.loaded / view.progress.total) * 100) : 5}%` }} />
        </div>
      ) : null}
      {view.phase === 'failed' ? <p role="alert">The sandbox failed to start: {view.failure}</p> : null}
      {view.banners.map((banner) => (
        <p key={banner.id} className={`banner ${banner.level}`} data-kind={banner.kind}>
          <strong>{banner.title}</strong> {banner.detail}
        </p>
      ))}
      {config.editorFile !== null ? (
        <div className="embed-editor">
          <label>
            {config.editorFile}
            <textarea value={source} spellCheck={false} rows={Math.min(20, Math.max(4, source.split('\n').length + 1))} onChange={(e) => setSource(e.target.value)} />
          </label>
          <button onClick={() => void runEditor()} disabled={sandbox === undefined}>
            ▶ Run
          </button>
        </div>
      ) : null}
      <TerminalPane host={host} history={[]} dark={dark} rows={config.rows} autoFocus={false} onSession={(s) => (session.current = s)} />
      <span id="status" hidden>
        {view.phase === 'ready' ? 'Ready' : view.phase}
      </span>
    </div>
  );
}
