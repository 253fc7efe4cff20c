// Reading an archive the user imports: only real archives are accepted — tar, tar.gz (or
// .tgz) and zip, told apart by their content, never by the file name. Anything else (a
// text file, a gzipped text file, an empty archive) is refused with a reason before
// anything is changed. Entries are then checked by validateImport.

import { unzipSync } from 'fflate';
import { formatBytes } from '../format.js';
import { validateImport, type ImportLimits } from './import-validation.js';
import { ArchiveTooLargeError, gunzip, isGzip, readTar, TarFormatError, type TarEntry } from './tar.js';

export type ArchiveFormat = 'tar' | 'tar.gz' | 'zip';

/** An archive refused before anything changed; `reasons` are shown to the user. */
export class ImportRefusedError extends Error {
  override readonly name = 'ImportRefusedError';
  constructor(
    readonly summary: string,
    readonly reasons: string[] = [],
  ) {
    super(reasons.length > 0 ? `${summary}: ${reasons.join('; ')}` : summary);
  }
}

export interface ParsedArchive {
  format: ArchiveFormat;
  entries: TarEntry[];
  /** Bytes of file content. */
  bytes: number;
}

/** A zip starts with a local file header, or (empty) with the end-of-directory record. */
function isZip(data: Uint8Array): boolean {
  return data[0] === 0x50 && data[1] === 0x4b && ((data[2] === 0x03 && data[3] === 0x04) || (data[2] === 0x05 && data[3] === 0x06));
}

function readZip(data: Uint8Array, maxBytes: number): TarEntry[] {
  let declared = 0;
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(data, {
      // Refuse before inflating: a zip's declared sizes let a bomb be caught up front.
      filter: (file) => {
        declared += file.originalSize;
        if (declared > maxBytes) throw new ArchiveTooLargeError(maxBytes);
        return true;
      },
    });
  } catch (error) {
    if (error instanceof ArchiveTooLargeError) throw error;
    throw new TarFormatError(`not a valid zip archive (${error instanceof Error ? error.message : String(error)})`);
  }
  const now = Date.now();
  const entries: TarEntry[] = [];
  for (const [name, content] of Object.entries(files)) {
    // fflate does not expose zip's mode bits or times: files 644, folders 755, now.
    if (name.endsWith('/')) entries.push({ path: name.replace(/\/+$/, ''), kind: 'dir', mode: 0o755, mtimeMs: now });
    else entries.push({ path: name, kind: 'file', mode: 0o644, mtimeMs: now, data: content });
  }
  return entries;
}

/**
 * Reads and validates an archive against the sandbox's limits. Throws ImportRefusedError
 * saying why for anything that is not a non-empty, valid tar, tar.gz or zip archive.
 */
export async function parseArchive(data: Uint8Array, limits: ImportLimits): Promise<ParsedArchive> {
  // A compressed archive is refused as soon as it expands past what the disk could hold
  // (for tar, plus room for its 512-byte headers).
  const maxBytes = Number.isFinite(limits.fsBytes) ? limits.fsBytes : Infinity;
  const maxTarBytes = maxBytes + maxBytes / 8 + 1024 * 1024;
  let format: ArchiveFormat;
  let entries: TarEntry[];
  try {
    if (isZip(data)) {
      format = 'zip';
      entries = readZip(data, maxBytes);
    } else if (isGzip(data)) {
      format = 'tar.gz';
      const tar = await gunzip(data, maxTarBytes);
      try {
        entries = readTar(tar);
      } catch (error) {
        if (!(error instanceof TarFormatError)) throw error;
        throw new ImportRefusedError('This is a gzip file but not a compressed tar archive', [error.message, 'only .tar, .tar.gz (.tgz) and .zip archives can be imported']);
      }
    } else {
      format = 'tar';
      try {
        entries = readTar(data);
      } catch (error) {
        if (!(error instanceof TarFormatError)) throw error;
        throw new ImportRefusedError('This file is not an archive', [error.message, 'only .tar, .tar.gz (.tgz) and .zip archives can be imported']);
      }
    }
  } catch (error) {
    if (error instanceof ImportRefusedError) throw error;
    if (error instanceof ArchiveTooLargeError) throw new ImportRefusedError('The archive is too large', [`${error.message.replace(`${error.maxBytes} bytes`, formatBytes(error.maxBytes))}; the disk limit is ${formatBytes(limits.fsBytes)}`]);
    if (error instanceof TarFormatError) throw new ImportRefusedError('The archive is damaged', [error.message]);
    throw error;
  }
  if (entries.length === 0) throw new ImportRefusedError('The archive is empty', ['it holds no files or folders, so importing it would only delete the workspace']);
  const check = validateImport(entries, limits);
  if (!check.ok) throw new ImportRefusedError('The archive has entries that cannot be imported', check.errors);
  return { format, entries: check.entries, bytes: check.bytes };
}
