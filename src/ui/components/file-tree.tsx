// The file tree of /home/user: directories load when expanded and reload after every change;
// create, rename (F2), delete (Delete), download, and upload of files and folders by drag
// and drop or the Upload button. Keyboard: the tree is one Tab stop (a roving tabindex on
// the current row); ↑/↓ move, Enter opens or toggles, →/← expand and collapse.

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

  const create = async (kind: 'file' | 'dir'): Promise<void> => {
    const name = await controller.dialogs.prompt({
      title: kind === 'file' ? 'New file' : 'New folder',
      label: `Name (in ${targetDir.replace(/^\/home\/user/, '~')})`,
      confirmLabel: 'Create',
      validate: validPath,
    });
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

  const rename = async (row: Row): Promise<void> => {
    const name = await controller.dialogs.prompt({ title: `Rename ${row.name}`, label: 'New name', value: row.name, confirmLabel: 'Rename', validate: validName });
    if (!name || name === row.name) return;
    const to = `${row.path.replace(/\/[^/]+$/, '')}/${name}`;
    await act(`Renaming ${row.path}`, async () => {
      await controller.renamePath(row.path, to);
      setSelected(to);
    });
  };

  const remove = async (row: Row): Promise<void> => {
    const open = controller.view.tabs.paths.some((p) => p === row.path || p.startsWith(`${row.path}/`));
    const ok = await controller.dialogs.confirm({
      title: `Delete ${row.name}?`,
      body: `${row.path}${row.kind === 'dir' ? ' and everything in it' : ''} will be deleted${open ? ', and its editor tab closed' : ''}. Restore points (Sessions) keep earlier copies.`,
      confirmLabel: 'Delete',
      danger: true,
    });
    if (ok) await act(`Deleting ${row.path}`, () => controller.removePath(row.path));
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
    else if (event.key === 'Home') focusRow(0);
    else if (event.key === 'End') focusRow(rows.length - 1);
    else if (event.key === 'F2') void rename(row);
    else if (event.key === 'Delete') void remove(row);
    else return;
    event.preventDefault();
  };

  return (
    <nav className="file-tree" aria-label="Files" onDragOver={(e) => e.preventDefault()} onDrop={(e) => onDrop(e, WORKSPACE_ROOT)}>
      <div className="tree-toolbar">
        <button onClick={() => void create('file')} title="Create a file">New file</button>
        <button onClick={() => void create('dir')} title="Create a folder">New folder</button>
        <button onClick={() => upload.current?.click()} title="Upload files">Upload</button>
        <input ref={upload} type="file" multiple hidden aria-label="Files to upload" onChange={(e) => void Promise.all([...(e.target.files ?? [])].map(async (f) => ({ path: f.name, data: new Uint8Array(await f.arrayBuffer()) }))).then((files) => store(files, targetDir))} />
      </div>
      <ul role="tree" ref={list} aria-label="/home/user">
        {rows.map((row, index) => (
          <li
            key={row.path}
            role="treeitem"
            tabIndex={row.path === (selectedRow?.path ?? rows[0]?.path) ? 0 : -1}
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
                <button tabIndex={-1} title="Rename (F2)" aria-label={`Rename ${row.name}`} onClick={(e) => (e.stopPropagation(), void rename(row))}>✎</button>
                {row.kind === 'file' ? <button tabIndex={-1} title="Download" aria-label={`Download ${row.name}`} onClick={(e) => (e.stopPropagation(), download(row))}>⤓</button> : null}
                <button tabIndex={-1} title="Delete (Del)" aria-label={`Delete ${row.name}`} onClick={(e) => (e.stopPropagation(), void remove(row))}>✕</button>
              </span>
            ) : null}
          </li>
        ))}
      </ul>
      {rows.length === 0 ? <p className="tree-empty">No files yet. Create one with New file, drop files here, or run a command.</p> : null}
    </nav>
  );
}

/** A name for a new or renamed entry: one path component. */
function validName(name: string): string | undefined {
  if (name.trim() === '') return 'Enter a name.';
  if (name.includes('/')) return 'A name cannot contain “/”.';
  if (name === '.' || name === '..') return 'That name is reserved.';
  if (new TextEncoder().encode(name).length > 255) return 'Names are at most 255 bytes.';
  return undefined;
}

/** A relative path for a new entry (folders in it are created). */
function validPath(path: string): string | undefined {
  if (path.startsWith('/')) return 'Give a name relative to the folder, without a leading “/”.';
  for (const part of path.split('/').filter((p) => p !== '')) {
    const problem = validName(part);
    if (problem !== undefined) return problem;
  }
  return path.trim() === '' ? 'Enter a name.' : undefined;
}
