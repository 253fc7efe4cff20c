// The editor: Monaco with one model per open file, tabs with dirty markers. Changes are
// saved to the sandbox on their own a moment after typing stops (and Ctrl/Cmd-S saves at
// once), so nothing typed is lost to a reload. Files changed by commands are reloaded into
// clean tabs; a file deleted or moved by a command closes its clean tab, and a tab with
// edits stays open marked “deleted” (autosave does not bring the file back; Save does).

import { useEffect, useRef, useState } from 'react';
import type { PlaygroundController } from '../playground/controller.js';
import { languageFor, monaco } from './monaco-setup.js';

interface OpenFile {
  model: monaco.editor.ITextModel;
  savedVersion: number;
  /** The file is gone from the sandbox (deleted or moved by a command). */
  deleted: boolean;
  autosave?: ReturnType<typeof setTimeout>;
}

/** Quiet time after the last keystroke before the file is saved on its own. */
export const AUTOSAVE_MS = 800;

interface EditorPaneProps {
  controller: PlaygroundController;
  paths: string[];
  active: string | null;
  fsVersion: number;
  dark: boolean;
  /** Receives a function that saves the active file (the Run button saves first). */
  onSaveActive?: (save: () => Promise<void>) => void;
}

const decoder = new TextDecoder();
const MAX_EDITOR_BYTES = 5 * 1024 * 1024;

/** Text small enough for the editor: no NUL byte in its first 8 KiB (how git tells binary). */
function isEditable(bytes: Uint8Array): boolean {
  return bytes.length <= MAX_EDITOR_BYTES && !bytes.subarray(0, 8192).includes(0);
}

export default function EditorPane({ controller, paths, active, fsVersion, dark, onSaveActive }: EditorPaneProps) {
  const host = useRef<HTMLDivElement>(null);
  const editor = useRef<monaco.editor.IStandaloneCodeEditor | null>(null);
  const files = useRef(new Map<string, OpenFile>());
  const [dirty, setDirty] = useState<ReadonlySet<string>>(new Set());
  const activeRef = useRef(active);
  activeRef.current = active;

  const [deleted, setDeleted] = useState<ReadonlySet<string>>(new Set());
  const isDirty = (file: OpenFile): boolean => file.model.getAlternativeVersionId() !== file.savedVersion;

  const markDirty = (): void => {
    const next = new Set<string>();
    const gone = new Set<string>();
    for (const [path, file] of files.current) {
      if (isDirty(file)) next.add(path);
      if (file.deleted) gone.add(path);
    }
    setDirty(next);
    setDeleted(gone);
  };

  /** Writes a tab to the sandbox. An autosave leaves a file deleted by a command deleted. */
  const save = async (path: string | null, how: 'explicit' | 'auto' = 'explicit'): Promise<void> => {
    const file = path === null ? undefined : files.current.get(path);
    const sandbox = controller.sandbox;
    if (path === null || file === undefined || sandbox === undefined) return;
    if (file.autosave !== undefined) clearTimeout(file.autosave);
    file.autosave = undefined;
    if (how === 'auto' && (file.deleted || !isDirty(file))) return;
    const version = file.model.getAlternativeVersionId();
    try {
      await sandbox.writeFile(path, file.model.getValue(), { parents: true });
      file.savedVersion = version;
      file.deleted = false;
      controller.dismissKind('editor-save');
      markDirty();
    } catch (error) {
      controller.addBanner({ level: 'error', kind: 'editor-save', title: `${path} was not saved.`, detail: `${error instanceof Error ? error.message : String(error)}. Your text is still in the editor.` });
    }
  };
  const saveRef = useRef(save);
  saveRef.current = save;
  onSaveActive?.(() => saveRef.current(activeRef.current));

  useEffect(() => {
    controller.setEditor({
      saveAll: async () => {
        for (const [path, file] of files.current) if (isDirty(file) && !file.deleted) await saveRef.current(path);
      },
      dirtyPaths: () => [...files.current].filter(([, file]) => isDirty(file)).map(([path]) => path),
    });
    return () => controller.setEditor(undefined);
  }, [controller]);

  useEffect(() => {
    if (host.current === null) return undefined;
    const instance = monaco.editor.create(host.current, { automaticLayout: true, minimap: { enabled: false }, fontSize: 13, tabSize: 2, model: null });
    instance.addCommand(monaco.KeyMod.CtrlCmd | monaco.KeyCode.KeyS, () => void saveRef.current(activeRef.current));
    const changes = instance.onDidChangeModelContent(() => {
      markDirty();
      const path = activeRef.current;
      const file = path === null ? undefined : files.current.get(path);
      if (path === null || file === undefined) return;
      if (file.autosave !== undefined) clearTimeout(file.autosave);
      file.autosave = setTimeout(() => void saveRef.current(path, 'auto'), AUTOSAVE_MS);
    });
    editor.current = instance;
    return () => {
      changes.dispose();
      instance.dispose();
      for (const file of files.current.values()) {
        if (file.autosave !== undefined) clearTimeout(file.autosave);
        file.model.dispose();
      }
      files.current.clear();
    };
  }, []);

  useEffect(() => monaco.editor.setTheme(dark ? 'airlock-dark' : 'airlock-light'), [dark]);

  // Open models for new tabs, drop closed ones, reload clean ones whose file changed.
  useEffect(() => {
    let cancelled = false;
    const sandbox = controller.sandbox;
    for (const [path, file] of files.current) {
      if (!paths.includes(path)) {
        if (file.autosave !== undefined) clearTimeout(file.autosave);
        file.model.dispose();
        files.current.delete(path);
      }
    }
    void (async () => {
      const vanished: string[] = [];
      for (const path of paths) {
        if (sandbox === undefined) break;
        let bytes: Uint8Array;
        try {
          bytes = await sandbox.readFile(path);
        } catch {
          if (cancelled) return;
          const open = files.current.get(path);
          // Gone (deleted or moved by a command): a clean tab closes; one with edits stays,
          // marked, so that nothing typed is lost and nothing is written back unasked.
          if (open === undefined || !isDirty(open)) vanished.push(path);
          else open.deleted = true;
          continue;
        }
        if (cancelled) return;
        if (!files.current.has(path) && !isEditable(bytes)) {
          controller.addBanner({ level: 'info', kind: 'editor-open', title: `${path} is not shown in the editor: it is ${bytes.length > MAX_EDITOR_BYTES ? 'larger than 5 MiB' : 'binary'}.`, detail: 'Download it from the file tree, or look at it in the terminal (head, od, wc).' });
          const rest = paths.filter((p) => p !== path);
          controller.setTabs({ paths: rest, active: active === path ? rest[rest.length - 1] ?? null : active });
          return;
        }
        const text = decoder.decode(bytes);
        const existing = files.current.get(path);
        if (existing === undefined) {
          const model = monaco.editor.createModel(text, languageFor(path), monaco.Uri.file(path));
          files.current.set(path, { model, savedVersion: model.getAlternativeVersionId(), deleted: false });
        } else if (existing.model.getAlternativeVersionId() === existing.savedVersion && existing.model.getValue() !== text) {
          existing.model.setValue(text);
          existing.savedVersion = existing.model.getAlternativeVersionId();
        }
      }
      if (cancelled) return;
      if (vanished.length > 0) {
        for (const path of vanished) controller.closeTabsUnder(path);
        controller.addBanner({ level: 'info', kind: 'editor-gone', title: `${vanished.map((p) => p.split('/').pop()).join(', ')} ${vanished.length === 1 ? 'was' : 'were'} deleted or moved, so ${vanished.length === 1 ? 'its tab was' : 'their tabs were'} closed.` });
        return;
      }
      const model = active === null ? null : files.current.get(active)?.model ?? null;
      if (editor.current !== null && editor.current.getModel() !== model) editor.current.setModel(model);
      markDirty();
    })();
    return () => {
      cancelled = true;
    };
  }, [paths, active, fsVersion]);

  const close = async (path: string): Promise<void> => {
    const file = files.current.get(path);
    if (file !== undefined && isDirty(file)) {
      if (file.deleted) {
        const drop = await controller.dialogs.confirm({ title: `Close ${path.split('/').pop() ?? path}?`, body: `${path} was deleted, and its tab has changes that exist only here. Closing the tab drops them.`, confirmLabel: 'Close and drop the changes', danger: true });
        if (!drop) return;
      } else await saveRef.current(path);
    }
    controller.closeTabsUnder(path);
  };

  return (
    <section className="editor" aria-label="Editor">
      <div className="tabs">
        <div className="tablist" role="tablist" aria-label="Open files">
          {paths.map((path, index) => (
            <button
              key={path}
              role="tab"
              className={`tab${path === active ? ' active' : ''}`}
              aria-selected={path === active}
              tabIndex={path === active || (active === null && index === 0) ? 0 : -1}
              title={`${path} (Delete closes the tab)`}
              onClick={() => controller.setTabs({ paths, active: path })}
              onKeyDown={(event) => {
                // One Tab stop for the tabs: arrows move between them, Delete closes one.
                const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
                if (step !== 0) {
                  const next = paths[(index + step + paths.length) % paths.length] ?? path;
                  controller.setTabs({ paths, active: next });
                  requestAnimationFrame(() => (event.currentTarget.parentElement?.querySelector<HTMLElement>('[aria-selected="true"]'))?.focus());
                } else if (event.key === 'Delete') void close(path);
                else return;
                event.preventDefault();
              }}
            >
              {path.split('/').pop()}
              {deleted.has(path) ? <span className="deleted"> (deleted)</span> : null}
              {dirty.has(path) ? <span className="dirty" aria-label="unsaved changes"> ●</span> : null}
              <span
                className="close"
                aria-hidden="true"
                onClick={(event) => {
                  event.stopPropagation();
                  void close(path);
                }}
              >
                ×
              </span>
            </button>
          ))}
        </div>
        {active !== null ? (
          <>
            <button className="save" onClick={() => void save(active)} disabled={!dirty.has(active)} title="Save (Ctrl/Cmd-S; changes are also saved on their own)">
              Save
            </button>
            <button className="close-tab" aria-label={`Close ${active}`} title="Close this tab" onClick={() => void close(active)}>
              Close
            </button>
          </>
        ) : null}
      </div>
      <div className="monaco-host" ref={host} data-testid="monaco-host" />
    </section>
  );
}
