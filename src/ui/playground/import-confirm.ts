// What an import of an archive says: the refusal's banner, and the confirmation's body
// (what the archive holds next to what the workspace holds, which it replaces).

import { createElement, type ReactNode } from 'react';
import { formatBytes, plural } from '../format.js';
import type { ImportRefusedError, ParsedArchive } from '../workspace/archive.js';
import type { BannerContent } from './banners.js';

/** "3 files and 1 folder (12 KiB)" for an archive's entries. */
export function describeEntries(archive: ParsedArchive): string {
  const files = archive.entries.filter((e) => e.kind !== 'dir').length;
  const dirs = archive.entries.length - files;
  return `${plural(files, 'file')}${dirs > 0 ? ` and ${plural(dirs, 'folder')}` : ''} (${formatBytes(archive.bytes)})`;
}

/** Why `name` was not imported, and that nothing changed. */
export function importRefusedBanner(name: string, error: ImportRefusedError): BannerContent {
  return { level: 'error', kind: 'import', title: `${name} was not imported: ${error.summary.charAt(0).toLowerCase()}${error.summary.slice(1)}.`, detail: `${error.reasons.map((r) => `${r.charAt(0).toUpperCase()}${r.slice(1)}`).join('. ')}. Nothing was changed.` };
}

/** The confirmation's body: the archive's first entries and what the workspace `now` holds. */
export function importConfirmBody(name: string, archive: ParsedArchive, now: { files: number; dirs: number; bytes: number }): ReactNode {
  return createElement(
    'div',
    null,
    createElement('p', null, `${name} (${archive.format}) holds ${describeEntries(archive)}.`),
    createElement('ul', { className: 'dialog-list', 'aria-label': 'First entries of the archive' }, ...archive.entries.slice(0, 8).map((e) => createElement('li', { key: e.path }, e.kind === 'dir' ? `${e.path}/` : e.path))),
    archive.entries.length > 8 ? createElement('p', null, `… and ${plural(archive.entries.length - 8, 'more entry', 'more entries')}.`) : null,
    createElement('p', null, `The workspace now holds ${plural(now.files, 'file')} and ${plural(now.dirs, 'folder')} (${formatBytes(now.bytes)}); they are replaced. A restore point of them is kept in Sessions.`),
  );
}
