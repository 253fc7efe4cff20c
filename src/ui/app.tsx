// The playground: toolbar, file tree, editor (loaded lazily), terminal, side panels, banners
// and status bar, all over one PlaygroundController.

import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { BannerList } from './components/banner-list.js';
import { FileTree } from './components/file-tree.js';
import { LoadingBar, PythonLoadingBar } from './components/loading-bar.js';
import { StatusBar } from './components/status-bar.js';
import { TerminalPane } from './components/terminal-pane.js';
import { DialogHost } from './dialogs/dialog-host.js';
import { PANELS } from './panels/index.js';
import { PanelFrame } from './panels/panel-frame.js';
import type { PlaygroundController } from './playground/controller.js';
import type { ShellHost, TerminalSession } from './terminal/terminal-session.js';
import { sandboxShellHost } from './terminal/sandbox-host.js';
import { Splitter, usePaneSize } from './components/splitter.js';
import { useTheme, type ThemeChoice } from './use-dark-mode.js';
import { ExamplesMenu } from './welcome/examples-menu.js';
import { shellQuote } from './workspace/workspace-files.js';

const EditorPane = lazy(() => import('./components/editor-pane.js'));

/** The interpreter for the Run button, by extension. */
const INTERPRETERS: Record<string, string> = { sh: 'bash', bash: 'bash', py: 'python3' };

export function App({ controller }: { controller: PlaygroundController }) {
  const view = useSyncExternalStore(controller.subscribe, controller.getView);
  const theme = useTheme();
  const dark = theme.dark;
  const [panelId, setPanelId] = useState<string | null>(null);
  // A workspace just filled with the welcome files opens the welcome panel, once.
  const [welcomed, setWelcomed] = useState(false);
  if (!welcomed && view.seeded === 'welcome') {
    setWelcomed(true);
    setPanelId('welcome');
  }
  const panel = PANELS.find((p) => p.id === panelId);
  const session = useRef<TerminalSession | null>(null);
  const saveActive = useRef<(() => Promise<void>) | null>(null);

  const open = useCallback(
    (path: string) => {
      const { paths } = controller.view.tabs;
      controller.setTabs({ paths: paths.includes(path) ? paths : [...paths, path], active: path });
    },
    [controller],
  );

  const sandbox = view.phase === 'ready' ? controller.sandbox : undefined;
  const host = useMemo<ShellHost | null>(
    () =>
      sandbox === undefined
        ? null
        : sandboxShellHost(controller, sandbox, {
            saveHistory: (entries) => controller.saveHistory(entries),
            restartShell: () => controller.restartShell(),
            interrupt: () => controller.interrupt(),
            openFile: async (path) => {
              await controller.ensureFile(path);
              open(path);
            },
          }),
    [sandbox, controller],
  );

  const activeExtension = view.tabs.active === null ? '' : /\.([^./]+)$/.exec(view.tabs.active)?.[1] ?? '';
  const interpreter = INTERPRETERS[activeExtension];
  /** Why the open file cannot run (the Run button says so and is disabled), or undefined. */
  const cannotRun =
    view.tabs.active === null
      ? 'Open a .sh or .py file to run it'
      : interpreter === undefined
        ? `Run works for .sh (bash) and .py (python3) files; this is ${activeExtension ? `a .${activeExtension}` : 'a'} file`
        : interpreter === 'python3' && !view.tools.includes('python3')
          ? 'python3 is not available in this sandbox'
          : interpreter === 'python3' && view.settings.tools !== null && !view.settings.tools.includes('python3')
            ? 'python3 is not in the tool allowlist (Settings)'
            : undefined;

  const runActive = async (): Promise<void> => {
    const path = view.tabs.active;
    if (path === null || interpreter === undefined || view.phase !== 'ready') return;
    if (view.running || session.current?.busy === true) {
      controller.addBanner({ level: 'info', kind: 'run', title: 'Already running: a command is still running in the terminal.', detail: 'Stop it (the Stop button or Ctrl-C in the terminal), or wait for it to end.' });
      return;
    }
    if (cannotRun !== undefined) {
      controller.addBanner({ level: 'warning', kind: 'run', title: `${cannotRun}.` });
      return;
    }
    await saveActive.current?.();
    if (session.current?.runLine(`${interpreter} ${shellQuote(path)}`) === false) {
      controller.addBanner({ level: 'info', kind: 'run', title: 'Already running: a command is still running in the terminal.', detail: 'Stop it (the Stop button or Ctrl-C in the terminal), or wait for it to end.' });
    }
  };
  const runRef = useRef(runActive);
  runRef.current = runActive;

  // Ctrl+Enter (Cmd+Enter) runs the open file from anywhere on the page.
  useEffect(() => {
    const onKey = (event: KeyboardEvent): void => {
      if (event.key !== 'Enter' || !(event.ctrlKey || event.metaKey) || event.altKey || event.shiftKey) return;
      event.preventDefault();
      event.stopPropagation();
      void runRef.current();
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, []);

  const [tree, setTree] = usePaneSize('tree', 240);
  const [editorPane, setEditorPane] = usePaneSize('editor', 320);
  const [side, setSide] = usePaneSize('panel', 352);
  const editorOpen = view.tabs.paths.length > 0;
  const running = view.running;

  return (
    <div className={`app ${dark ? 'dark' : 'light'}`}>
      <header className="toolbar">
        <h1>Airlock</h1>
        {running ? (
          <button id="run-file" className="stop" onClick={() => session.current?.stop()} title="Stop the running command (Ctrl-C)">
            ■ Stop
          </button>
        ) : (
          <button id="run-file" onClick={() => void runActive()} disabled={view.phase !== 'ready' || cannotRun !== undefined} title={cannotRun ?? `Run ${view.tabs.active ?? ''} (Ctrl+Enter)`}>
            ▶ Run{interpreter !== undefined ? ` .${activeExtension}` : ''}
          </button>
        )}
        {PANELS.map((p) => (
          <button key={p.id} id={`panel-${p.id}`} onClick={() => setPanelId(panelId === p.id ? null : p.id)} aria-expanded={panelId === p.id} disabled={!(p.enabled?.(view) ?? view.phase === 'ready')}>
            {p.title}
          </button>
        ))}
        <ExamplesMenu />
        <button onClick={() => void controller.downloadArchive()} disabled={view.phase !== 'ready'}>
          Download workspace
        </button>
        <label className="theme-switch">
          Theme{' '}
          <select value={theme.choice} onChange={(e) => theme.setChoice(e.target.value as ThemeChoice)} aria-label="Theme">
            <option value="system">System</option>
            <option value="light">Light</option>
            <option value="dark">Dark</option>
          </select>
        </label>
      </header>
      {view.phase === 'loading' ? <LoadingBar progress={view.progress} /> : <PythonLoadingBar python={view.python} />}
      <div className="banner-area" role="region" aria-label="Messages">
        <div className="banner-stack">
          {view.phase === 'failed' ? (
            <div className="banners">
              <div className="banner error" role="alert">
                <strong>The sandbox failed to start: {view.failure}</strong> Reload the page; if it keeps failing, check that the server is running.
              </div>
            </div>
          ) : null}
          <BannerList banners={view.banners} onDismiss={(id) => controller.dismiss(id)} />
        </div>
      </div>
      <main className="workbench">
        <div id="pane-tree" className="pane-tree" style={{ width: tree.collapsed ? 0 : tree.size }} hidden={tree.collapsed}>
          <FileTree controller={controller} fsVersion={view.fsVersion} onOpen={open} />
        </div>
        <Splitter sizes="before" orientation="vertical" label="Resize the file tree" controls="pane-tree" state={tree} onChange={setTree} min={140} max={600} />
        <div className="center">
          {editorOpen ? (
            <>
              <div id="pane-editor" className="pane-editor" style={{ height: editorPane.collapsed ? 0 : editorPane.size }} hidden={editorPane.collapsed}>
                <Suspense fallback={<section className="editor editor-loading">Loading the editor…</section>}>
                  {view.phase === 'ready' ? (
                    <EditorPane controller={controller} paths={view.tabs.paths} active={view.tabs.active} fsVersion={view.fsVersion} dark={dark} onSaveActive={(save) => (saveActive.current = save)} />
                  ) : (
                    <section className="editor editor-loading" />
                  )}
                </Suspense>
              </div>
              <Splitter sizes="before" orientation="horizontal" label="Resize the editor" controls="pane-editor" state={editorPane} onChange={setEditorPane} min={120} max={1200} />
            </>
          ) : (
            <p className="editor-closed">No file open: pick one in the tree, or type <code>edit FILE</code> in the terminal.</p>
          )}
          <TerminalPane host={host} history={controller.savedHistory} dark={dark} onSession={(s) => (session.current = s)} />
        </div>
        {panel !== undefined ? (
          <>
            <Splitter sizes="after" orientation="vertical" label="Resize the side panel" controls="pane-side" state={side} onChange={setSide} min={240} max={800} />
            <div id="pane-side" className="pane-side" style={{ width: side.collapsed ? 0 : side.size }} hidden={side.collapsed}>
              <PanelFrame panel={panel} context={{ controller, view, close: () => setPanelId(null), openFile: open }} />
            </div>
          </>
        ) : null}
      </main>
      <StatusBar view={view} />
      <DialogHost service={controller.dialogs} />
    </div>
  );
}
