// The playground: toolbar, file tree, editor (loaded lazily), terminal, side panels, banners
// and status bar, all over one PlaygroundController.

import { lazy, Suspense, useCallback, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { BannerList } from './components/banner-list.js';
import { FileTree } from './components/file-tree.js';
import { LoadingBar, PythonLoadingBar } from './components/loading-bar.js';
import { SessionsPanel } from './components/sessions-panel.js';
import { SettingsPanel } from './components/settings-panel.js';
import { StatusBar } from './components/status-bar.js';
import { TerminalPane } from './components/terminal-pane.js';
import type { PlaygroundController } from './playground/controller.js';
import type { ShellHost, TerminalSession } from './terminal/terminal-session.js';
import { useDarkMode } from './use-dark-mode.js';
import { downloadBytes, shellQuote } from './workspace/workspace-files.js';

const EditorPane = lazy(() => import('./components/editor-pane.js'));

/** The interpreter for the Run button, by extension. */
const INTERPRETERS: Record<string, string> = { sh: 'bash', bash: 'bash', py: 'python3' };

export function App({ controller }: { controller: PlaygroundController }) {
  const view = useSyncExternalStore(controller.subscribe, controller.getView);
  const dark = useDarkMode();
  const [panel, setPanel] = useState<'none' | 'settings' | 'sessions'>('none');
  const session = useRef<TerminalSession | null>(null);
  const saveActive = useRef<(() => Promise<void>) | null>(null);

  const sandbox = view.phase === 'ready' ? controller.sandbox : undefined;
  const host = useMemo<ShellHost | null>(
    () =>
      sandbox === undefined
        ? null
        : {
            run: (command, options) => controller.run(command, options),
            writeStdin: (data) => sandbox.writeStdin(data),
            readDir: (path) => sandbox.readDir(path),
            commands: () => sandbox.installedTools,
            saveHistory: (entries) => controller.saveHistory(entries),
          },
    [sandbox, controller],
  );

  const open = useCallback(
    (path: string) => {
      const { paths } = controller.view.tabs;
      controller.setTabs({ paths: paths.includes(path) ? paths : [...paths, path], active: path });
    },
    [controller],
  );

  const runActive = async (): Promise<void> => {
    const path = view.tabs.active;
    if (path === null) return;
    const extension = /\.([^./]+)$/.exec(path)?.[1] ?? '';
    const interpreter = INTERPRETERS[extension];
    if (interpreter === undefined) {
      controller.addBanner({ level: 'warning', kind: 'run', title: `There is no interpreter for .${extension || '(no extension)'} files.`, detail: 'Run works for .sh (bash) and .py (python3); use the terminal for anything else.' });
      return;
    }
    if (interpreter === 'python3' && !view.tools.includes('python3')) {
      controller.addBanner({ level: 'warning', kind: 'run', title: 'python3 is not available in this sandbox, so .py files cannot run.', detail: 'Shell scripts (.sh) still run with bash.' });
      return;
    }
    if (view.settings.tools !== null && interpreter === 'python3' && !view.settings.tools.includes('python3')) {
      controller.addBanner({ level: 'warning', kind: 'run', title: 'python3 is not in this sandbox’s tool allowlist.', detail: 'Allow it in Settings to run .py files.' });
      return;
    }
    await saveActive.current?.();
    if (session.current?.runLine(`${interpreter} ${shellQuote(path)}`) === false) {
      controller.addBanner({ level: 'info', kind: 'run', title: 'A command is still running in the terminal.', detail: 'Wait for it, or press Ctrl-C in the terminal to stop it.' });
    }
  };

  const exportNow = async (): Promise<void> => {
    try {
      downloadBytes(`${view.workspace}.tar.gz`, await controller.exportArchive(), 'application/gzip');
    } catch (error) {
      controller.addBanner({ level: 'error', kind: 'export', title: 'Export failed.', detail: error instanceof Error ? error.message : String(error) });
    }
  };

  const activeExtension = view.tabs.active === null ? '' : /\.([^./]+)$/.exec(view.tabs.active)?.[1] ?? '';

  return (
    <div className={`app ${dark ? 'dark' : 'light'}`}>
      <header className="toolbar">
        <h1>Airlock</h1>
        <button id="run-file" onClick={() => void runActive()} disabled={view.phase !== 'ready' || view.tabs.active === null} title="Run the open file (bash for .sh, python3 for .py)">
          ▶ Run{activeExtension ? ` .${activeExtension}` : ''}
        </button>
        <button onClick={() => setPanel(panel === 'sessions' ? 'none' : 'sessions')} aria-expanded={panel === 'sessions'} disabled={view.phase !== 'ready'}>
          Sessions
        </button>
        <button onClick={() => setPanel(panel === 'settings' ? 'none' : 'settings')} aria-expanded={panel === 'settings'} disabled={view.phase !== 'ready'}>
          Settings
        </button>
        <button onClick={() => void exportNow()} disabled={view.phase !== 'ready'}>
          Download workspace
        </button>
      </header>
      {view.phase === 'loading' ? <LoadingBar progress={view.progress} /> : <PythonLoadingBar python={view.python} />}
      {view.phase === 'failed' ? (
        <div className="banners">
          <div className="banner error" role="alert">
            <strong>The sandbox failed to start: {view.failure}</strong> Reload the page; if it keeps failing, check that the server is running.
          </div>
        </div>
      ) : null}
      <BannerList banners={view.banners} onDismiss={(id) => controller.dismiss(id)} />
      <main className="workbench">
        <FileTree controller={controller} fsVersion={view.fsVersion} onOpen={open} />
        <div className="center">
          <Suspense fallback={<section className="editor editor-loading">Loading the editor…</section>}>
            {view.phase === 'ready' ? (
              <EditorPane controller={controller} paths={view.tabs.paths} active={view.tabs.active} fsVersion={view.fsVersion} dark={dark} onSaveActive={(save) => (saveActive.current = save)} />
            ) : (
              <section className="editor editor-loading" />
            )}
          </Suspense>
          <TerminalPane host={host} history={controller.savedHistory} dark={dark} onSession={(s) => (session.current = s)} />
        </div>
        {panel === 'settings' ? (
          <SettingsPanel
            settings={view.settings}
            installedTools={view.tools}
            onClose={() => setPanel('none')}
            onApply={(settings) => {
              setPanel('none');
              void controller.applySettings(settings);
            }}
          />
        ) : null}
        {panel === 'sessions' ? (
          <SessionsPanel
            snapshots={view.snapshots}
            onSnapshot={() => void controller.snapshot()}
            onRestore={(id) => void controller.restore(id)}
            onFork={() => void controller.fork()}
            onReset={() => void controller.reset()}
            onExport={() => void exportNow()}
            onImport={(data) => void controller.importArchive(data)}
            onClose={() => setPanel('none')}
          />
        ) : null}
      </main>
      <StatusBar view={view} />
    </div>
  );
}
