// The editor: Monaco with one model per open file, tabs with dirty markers, Ctrl/Cmd-S
// saving to the VFS. Files changed by commands are reloaded into clean tabs.

import { useEffect, useRef, useState } from 'react';
import type { PlaygroundController } from '../playground/controller.js';
import { languageFor, monaco } from './monaco-setup.js';

interface OpenFile {
  model: monaco.editor.ITextModel;
  savedVersion: number;
}

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

  const markDirty = (): void => {
    const next = new Set<string>();
    for (const [path, file] of files.current) if (file.model.getAlternativeVersionId() !== file.savedVersion) next.add(path);
    setDirty(next);
  };

  const save = async (path: string | null): Promise<void> => {
    const file = path === null ? undefined : files.current.get(path);
    const sandbox = controller.sandbox;
    if (path === null || file === undefined || sandbox === undefined) return;
    const version = file.model.getAlternativeVersionId();
    try {
      await sandbox.writeFile(path, file.model.getValue(), { parents: true });
      file.savedVersion = version;
      markDirty();
    } catch (error) {
      controller.addBanner({ level: 'error', kind: 'editor-save', title: `${path} was not saved.`, detail: error instanceof Error ? error.message : String(error) });
    }
  };
  const saveRef = useRef(save);
  saveRef.current = save;
  onSaveActive?.(() => saveRef.current(activeRef.current));

  useEffect(() => {
    if (host.current === null) return undefined;
    const instance = monaco.editor.create(host.current, { automaticLayout: true, minimap: { enabled: false }, fontSize: 13, tabSize: 2, model: null });
    instance.addCommand(monaco.KeyMod.CtrlCmd | monaco.KeyCode.KeyS, () => void saveRef.current(activeRef.current));
    const changes = instance.onDidChangeModelContent(() => markDirty());
    editor.current = instance;
    return () => {
      changes.dispose();
      instance.dispose();
      for (const file of files.current.values()) file.model.dispose();
      files.current.clear();
    };
  }, []);

  useEffect(() => monaco.editor.setTheme(dark ? 'vs-dark' : 'vs'), [dark]);

  // Open models for new tabs, drop closed ones, reload clean ones whose file changed.
  useEffect(() => {
    let cancelled = false;
    const sandbox = controller.sandbox;
    for (const [path, file] of files.current) {
      if (!paths.includes(path)) {
        file.model.dispose();
        files.current.delete(path);
      }
    }
    void (async () => {
      for (const path of paths) {
        if (sandbox === undefined) break;
        let bytes: Uint8Array;
        try {
          bytes = await sandbox.readFile(path);
        } catch {
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
          files.current.set(path, { model, savedVersion: model.getAlternativeVersionId() });
        } else if (existing.model.getAlternativeVersionId() === existing.savedVersion && existing.model.getValue() !== text) {
          existing.model.setValue(text);
          existing.savedVersion = existing.model.getAlternativeVersionId();
        }
      }
      if (cancelled) return;
      const model = active === null ? null : files.current.get(active)?.model ?? null;
      if (editor.current !== null && editor.current.getModel() !== model) editor.current.setModel(model);
      markDirty();
    })();
    return () => {
      cancelled = true;
    };
  }, [paths, active, fsVersion]);

  const close = (path: string): void => {
    if (dirty.has(path) && !window.confirm(`${path} has unsaved changes. Close it anyway?`)) return;
    const rest = paths.filter((p) => p !== path);
    controller.setTabs({ paths: rest, active: active === path ? rest[rest.length - 1] ?? null : active });
  };

  return (
    <section className="editor" aria-label="Editor">
      <div className="tabs" role="tablist" aria-label="Open files">
        {paths.map((path) => (
          <div key={path} className={`tab${path === active ? ' active' : ''}`}>
            <button role="tab" aria-selected={path === active} title={path} onClick={() => controller.setTabs({ paths, active: path })}>
              {path.split('/').pop()}
              {dirty.has(path) ? <span className="dirty" aria-label="unsaved changes"> ●</span> : null}
            </button>
            <button className="close" aria-label={`Close ${path}`} onClick={() => close(path)}>
              ×
            </button>
          </div>
        ))}
        {active !== null ? (
          <button className="save" onClick={() => void save(active)} disabled={!dirty.has(active)} title="Save (Ctrl/Cmd-S)">
            Save
          </button>
        ) : null}
      </div>
      <div className="monaco-host" ref={host} data-testid="monaco-host" />
      {paths.length === 0 ? <p className="editor-empty">Open a file from the tree, or create one with “New file”.</p> : null}
    </section>
  );
}
