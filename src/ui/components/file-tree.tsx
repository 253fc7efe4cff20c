// The file tree of /home/user: directories load when expanded and reload after every change;
// create, rename (F2), delete (Delete), download, and upload of files and folders by drag
// and drop or the Upload button. Keyboard: ↑/↓ move, Enter opens or toggles.

import { useEffect, useRef, useState, type DragEvent, type KeyboardEvent } from 'react';
import type { DirEntry } from '../../host/browser/index.js';
import type { PlaygroundController } from '../playground/controller.js';
import { downloadBytes, WORKSPACE_ROOT } from '../workspace/workspace-files.js';
import { readDropped, type UploadedFile } from './uploads.js';

interface FileTreeProps {
  controller: PlaygroundController;
  fsVersion: number;
  onOpen: (path: string) => void;
}

interface Row {
  path: string;
  name: string;
  kind: string;
  depth: number;
}

export function FileTree({ controller, fsVersion, onOpen }: FileTreeProps) {
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set([WORKSPACE_ROOT]));
  const [listing, setListing] = useState<ReadonlyMap<string, DirEntry[]>>(new Map());
  const [selected, setSelected] = useState<string | null>(null);
  const list = useRef<HTMLUListElement>(null);
  const upload = useRef<HTMLInputElement>(null);

  useEffect(() => {
    const sandbox = controller.sandbox;
    if (sandbox === undefined) return undefined;
    let cancelled = false;
    void (async () => {
      const next = new Map<string, DirEntry[]>();
      for (const dir of expanded) {
        try {
          next.set(dir, await sandbox.readDir(dir));
        } catch {
          // A directory removed meanwhile: it simply is not listed.
        }
      }
      if (!cancelled) setListing(next);
    })();
    return () => {
      cancelled = true;
    };
  }, [controller, fsVersion, expanded]);

  const rows: Row[] = [];
  const walk = (dir: string, depth: number): void => {
    for (const entry of listing.get(dir) ?? []) {
      const path = `${dir}/${entry.name}`;
      rows.push({ path, name: entry.name, kind: entry.kind, depth });
      if (entry.kind === 'dir' && expanded.has(path)) walk(path, depth + 1);
    }
  };
  walk(WORKSPACE_ROOT, 0);

  const selectedRow = rows.find((r) => r.path === selected);
  const targetDir = selectedRow === undefined ? WORKSPACE_ROOT : selectedRow.kind === 'dir' ? selectedRow.path : selectedRow.path.replace(/\/[^/]+$/, '');

  const toggle = (path: string): void => {
    const next = new Set(expanded);
    if (next.has(path)) next.delete(path);
    else next.add(path);
    setExpanded(next);
  };

  const act = async (what: string, operation: () => Promise<unknown>): Promise<void> => {
    try {
      await operation();
    } catch (error) {
      controller.addBanner({ level: 'error', kind: 'file-op', title: `${what} failed.`, detail: error instanceof Error ? error.message : String(error) });
    }
    controller.touchFiles();
  };

  const create = (kind: 'file' | 'dir'): void => {
    const name = window.prompt(kind === 'file' ? `New file in ${targetDir}:` : `New folder in ${targetDir}:`);
    const sandbox = controller.sandbox;
    if (!name || sandbox === undefined) return;
    const path = `${targetDir}/${name}`;
    void act(`Creating ${path}`, async () => {
      if (kind === 'dir') await sandbox.mkdir(path, { recursive: true });
      else {
        await sandbox.writeFile(path, '', { parents: true });
        onOpen(path);
      }
      setExpanded(new Set([...expanded, targetDir]));
    });
  };

  const rename = (row: Row): void => {
    const name = window.prompt(`Rename ${row.name} to:`, row.name);
    const sandbox = controller.sandbox;
    if (!name || name === row.name || sandbox === undefined) return;
    const to = `${row.path.replace(/\/[^/]+$/, '')}/${name}`;
    void act(`Renaming ${row.path}`, async () => {
      const result = await sandbox.run(['mv', '--', row.path, to]);
      if (result.exitCode !== 0) throw new Error(result.stderr.trim());
      setSelected(to);
    });
  };

  const remove = (row: Row): void => {
    const sandbox = controller.sandbox;
    if (sandbox === undefined || !window.confirm(`Delete ${row.path}${row.kind === 'dir' ? ' and everything in it' : ''}?`)) return;
    void act(`Deleting ${row.path}`, () => sandbox.rm(row.path, { recursive: true, force: true }));
  };

  const download = (row: Row): void => {
    const sandbox = controller.sandbox;
    if (sandbox === undefined) return;
    void act(`Downloading ${row.path}`, async () => downloadBytes(row.name, await sandbox.readFile(row.path)));
  };

  const store = (files: UploadedFile[], dir: string): void => {
    const sandbox = controller.sandbox;
    if (sandbox === undefined || files.length === 0) return;
    void act(`Uploading ${files.length} file(s)`, async () => {
      for (const file of files) await sandbox.writeFile(`${dir}/${file.path}`, file.data, { parents: true });
      setExpanded(new Set([...expanded, dir]));
    });
  };

  const onDrop = (event: DragEvent, dir: string): void => {
    event.preventDefault();
    event.stopPropagation();
    void readDropped(event.dataTransfer).then((files) => store(files, dir));
  };

  const onKey = (event: KeyboardEvent, row: Row, index: number): void => {
    const focusRow = (i: number): void => (list.current?.querySelectorAll<HTMLElement>('[role=treeitem]')[i])?.focus();
    if (event.key === 'ArrowDown') focusRow(Math.min(rows.length - 1, index + 1));
    else if (event.key === 'ArrowUp') focusRow(Math.max(0, index - 1));
    else if (event.key === 'Enter') (row.kind === 'dir' ? toggle(row.path) : onOpen(row.path));
    else if (event.key === 'ArrowRight' && row.kind === 'dir' && !expanded.has(row.path)) toggle(row.path);
    else if (event.key === 'ArrowLeft' && row.kind === 'dir' && expanded.has(row.path)) toggle(row.path);
    else if (event.key === 'F2') rename(row);
    else if (event.key === 'Delete') remove(row);
    else return;
    event.preventDefault();
  };

  return (
    <nav className="file-tree" aria-label="Files" onDragOver={(e) => e.preventDefault()} onDrop={(e) => onDrop(e, WORKSPACE_ROOT)}>
      <div className="tree-toolbar">
        <button onClick={() => create('file')} title="New file">+ File</button>
        <button onClick={() => create('dir')} title="New folder">+ Folder</button>
        <button onClick={() => upload.current?.click()} title="Upload files">Upload</button>
        <input ref={upload} type="file" multiple hidden onChange={(e) => void Promise.all([...(e.target.files ?? [])].map(async (f) => ({ path: f.name, data: new Uint8Array(await f.arrayBuffer()) }))).then((files) => store(files, targetDir))} />
      </div>
      <ul role="tree" ref={list} aria-label="/home/user">
        {rows.map((row, index) => (
          <li
            key={row.path}
            role="treeitem"
            tabIndex={0}
            aria-selected={row.path === selected}
            aria-expanded={row.kind === 'dir' ? expanded.has(row.path) : undefined}
            data-path={row.path}
            className={row.path === selected ? 'selected' : undefined}
            style={{ paddingLeft: `${0.5 + row.depth}rem` }}
            onClick={() => {
              setSelected(row.path);
              if (row.kind === 'dir') toggle(row.path);
              else onOpen(row.path);
            }}
            onFocus={() => setSelected(row.path)}
            onKeyDown={(e) => onKey(e, row, index)}
            onDragOver={(e) => row.kind === 'dir' && e.preventDefault()}
            onDrop={(e) => row.kind === 'dir' && onDrop(e, row.path)}
          >
            <span aria-hidden="true">{row.kind === 'dir' ? (expanded.has(row.path) ? '▾ ' : '▸ ') : row.kind === 'symlink' ? '↪ ' : '  '}</span>
            {row.name}
            {row.path === selected ? (
              <span className="row-actions">
                <button tabIndex={-1} title="Rename (F2)" aria-label={`Rename ${row.name}`} onClick={(e) => (e.stopPropagation(), rename(row))}>✎</button>
                {row.kind === 'file' ? <button tabIndex={-1} title="Download" aria-label={`Download ${row.name}`} onClick={(e) => (e.stopPropagation(), download(row))}>⤓</button> : null}
                <button tabIndex={-1} title="Delete (Del)" aria-label={`Delete ${row.name}`} onClick={(e) => (e.stopPropagation(), remove(row))}>✕</button>
              </span>
            ) : null}
          </li>
        ))}
      </ul>
      {rows.length === 0 ? <p className="tree-empty">No files yet. Create one, drop files here, or run a command.</p> : null}
    </nav>
  );
}
