// Trees as tar files, the form in which workspaces travel to a worker and results come back:
// packed to a file with its SHA-256 (the job names it; the receiver checks it before a byte
// is used), streamed with a size cap, and unpacked as hostile input through the copy-out
// writer (server/backends/copy-out.ts: only files, directories and — for workspaces —
// symlinks kept as links; no `..`, absolute paths, devices; nothing written through a link).

import { createHash } from 'node:crypto';
import { chmodSync, createReadStream, createWriteStream, lstatSync, readlinkSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { extract, pack, type Header, type Pack } from 'tar-stream';
import { walkCopyIn, newCopyInBudget } from '../backends/copy-in.js';
import { CopyOutWriter, safeRelativeParts, type CopyOutCaps } from '../backends/copy-out.js';

export class ArtifactError extends Error {
  override name = 'ArtifactError';
}

export interface PackedArtifact {
  path: string;
  sha256: string;
  bytes: number;
}

/** Packs the tree at `root` (copy-in rules: no symlink followed, devices refused, capped) into `tarPath`. */
export async function packTree(root: string, tarPath: string): Promise<PackedArtifact> {
  const archive = pack();
  const written = writeHashed(archive as unknown as AsyncIterable<Uint8Array>, tarPath);
  try {
    for (const entry of walkCopyIn(root, newCopyInBudget())) {
      if (entry.relPath === '') continue;
      if (entry.kind === 'dir') archive.entry({ name: entry.relPath, type: 'directory', mode: entry.mode });
      else if (entry.kind === 'symlink') archive.entry({ name: entry.relPath, type: 'symlink', linkname: entry.target ?? '', mode: entry.mode });
      else await addFile(archive, entry.relPath, entry.hostPath, entry.size, entry.mode);
    }
  } catch (error) {
    archive.destroy(error as Error);
    await written.catch(() => undefined);
    throw error;
  }
  archive.finalize();
  return await written;
}

/** Packs the listed files (relative path → host path) and directories into `tarPath`. */
export async function packFiles(files: Array<{ name: string; hostPath: string }>, tarPath: string): Promise<PackedArtifact> {
  const archive = pack();
  const written = writeHashed(archive as unknown as AsyncIterable<Uint8Array>, tarPath);
  for (const file of files) {
    const stat = lstatSync(file.hostPath);
    if (stat.isDirectory()) archive.entry({ name: file.name, type: 'directory', mode: 0o755 });
    else if (stat.isFile()) await addFile(archive, file.name, file.hostPath, stat.size, 0o644);
    else if (stat.isSymbolicLink()) archive.entry({ name: file.name, type: 'symlink', linkname: readlinkSync(file.hostPath) });
  }
  archive.finalize();
  return await written;
}

async function addFile(archive: Pack, name: string, hostPath: string, size: number, mode: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const sink = archive.entry({ name, type: 'file', size, mode }, (error) => (error ? reject(error) : resolve()));
    const input = createReadStream(hostPath);
    input.on('error', reject);
    input.on('data', (chunk: string | Buffer) => {
      if (!sink.write(chunk)) {
        input.pause();
        sink.once('drain', () => input.resume());
      }
    });
    // streamx's end() takes an optional chunk; its typings require one.
    input.on('end', () => (sink as unknown as { end(): void }).end());
  });
}

/** Writes an archive being packed to `path`, hashing it on the way. */
async function writeHashed(source: AsyncIterable<Uint8Array>, path: string): Promise<PackedArtifact> {
  const hash = createHash('sha256');
  let bytes = 0;
  const out = createWriteStream(path, { flags: 'wx', mode: 0o600 });
  try {
    for await (const chunk of source) {
      hash.update(chunk);
      bytes += chunk.length;
      if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
    }
  } finally {
    await new Promise<void>((resolve) => out.end(resolve));
  }
  return { path, sha256: hash.digest('hex'), bytes };
}

/**
 * Writes a stream to `path`, refusing more than `maxBytes` and a SHA-256 other than
 * `expectedSha256` (the file is left for the caller to remove).
 */
export async function receiveArtifact(source: AsyncIterable<Uint8Array>, path: string, maxBytes: number, expectedSha256: string, what: string): Promise<PackedArtifact> {
  const hash = createHash('sha256');
  let bytes = 0;
  const out = createWriteStream(path, { flags: 'wx', mode: 0o600 });
  try {
    for await (const chunk of source) {
      bytes += chunk.length;
      if (bytes > maxBytes) throw new ArtifactError(`${what}: more than ${maxBytes} bytes (the cap)`);
      hash.update(chunk);
      if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
    }
  } finally {
    await new Promise<void>((resolve) => out.end(resolve));
  }
  const sha256 = hash.digest('hex');
  if (sha256 !== expectedSha256) throw new ArtifactError(`${what}: sha256 ${sha256} is not the announced ${expectedSha256} (${bytes} bytes received)`);
  return { path, sha256, bytes };
}

export interface UnpackOptions {
  caps: CopyOutCaps;
  /** Workspaces keep their symlinks (as links, never followed); results refuse them. */
  symlinks: boolean;
  /** Keep the execute bits of files (workspaces). */
  modes: boolean;
}

/** Unpacks `tarPath` into `root`; returns what was refused (a result's refusals are kept, a workspace's are fatal to the caller). */
export async function unpackTar(tarPath: string, root: string, options: UnpackOptions): Promise<string[]> {
  const writer = new CopyOutWriter(root, options.caps);
  const parser = extract();
  const done = (async () => {
    for await (const entry of parser) {
      await unpackEntry(writer, root, entry.header, entry as unknown as Readable, options);
    }
  })();
  const input = createReadStream(tarPath);
  input.on('error', (error) => parser.destroy(error));
  input.pipe(parser);
  await done;
  return writer.refusals;
}

async function unpackEntry(writer: CopyOutWriter, root: string, header: Header, entry: Readable, options: UnpackOptions): Promise<void> {
  const name = header.name;
  if (header.type === 'directory') {
    writer.dir(name);
  } else if (header.type === 'file' || header.type === 'contiguous-file') {
    const sink = writer.openFile(name, header.size ?? 0);
    if (sink !== false) {
      try {
        for await (const chunk of entry as AsyncIterable<Buffer>) sink.write(chunk);
      } finally {
        sink.close();
      }
      const parts = safeRelativeParts(name, options.caps);
      if (options.modes && typeof parts !== 'string' && ((header.mode ?? 0) & 0o111) !== 0) chmodSync(join(root, ...parts), 0o755);
      return;
    }
  } else if (header.type === 'symlink' && options.symlinks) {
    const parts = safeRelativeParts(name, options.caps);
    const parentOk = typeof parts !== 'string' && (parts.length === 1 || writer.dir(parts.slice(0, -1).join('/')));
    if (typeof parts !== 'string' && parentOk && writer.admit(name, 'dir', 0) !== false) symlinkSync(header.linkname ?? '', join(root, ...parts));
  } else {
    const kind = header.type === 'symlink' ? 'symlink' : header.type === 'link' ? 'hardlink' : header.type?.includes('device') ? 'device' : header.type === 'fifo' ? 'fifo' : 'other';
    writer.admit(name, kind, 0, header.linkname ?? undefined);
  }
  entry.resume();
  await new Promise<void>((resolve) => (entry.readableEnded ? resolve() : entry.once('end', () => resolve())));
}
