// Artifacts: a tree survives the round trip (modes, symlinks as links); a wrong hash or an
// oversized stream is refused; a hostile result tar (a link, `..`) writes nothing outside.
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync, createReadStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pack } from 'tar-stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ArtifactError, packTree, receiveArtifact, unpackTar } from './artifacts.js';

const CAPS = { bytes: 1 << 20, entries: 100, pathBytes: 1024 };
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'airlock-artifacts-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('artifacts', () => {
  it('packs and unpacks a workspace with its modes and symlinks', async () => {
    mkdirSync(join(dir, 'ws/bin'), { recursive: true });
    writeFileSync(join(dir, 'ws/bin/run.sh'), '#!/bin/sh\necho hi\n');
    chmodSync(join(dir, 'ws/bin/run.sh'), 0o755);
    writeFileSync(join(dir, 'ws/data.txt'), 'data');
    symlinkSync('bin/run.sh', join(dir, 'ws/link'));
    const packed = await packTree(join(dir, 'ws'), join(dir, 'ws.tar'));
    const received = await receiveArtifact(createReadStream(packed.path), join(dir, 'copy.tar'), packed.bytes, packed.sha256, 'artifact 0');
    expect(received.sha256).toBe(packed.sha256);
    expect(await unpackTar(received.path, join(dir, 'out'), { caps: CAPS, symlinks: true, modes: true })).toEqual([]);
    expect(readFileSync(join(dir, 'out/data.txt'), 'utf8')).toBe('data');
    expect(statSync(join(dir, 'out/bin/run.sh')).mode & 0o111).not.toBe(0);
    expect(readlinkSync(join(dir, 'out/link'))).toBe('bin/run.sh');
  });

  it('refuses a wrong hash and a stream over its cap', async () => {
    mkdirSync(join(dir, 'ws'));
    writeFileSync(join(dir, 'ws/a'), 'x'.repeat(5000));
    const packed = await packTree(join(dir, 'ws'), join(dir, 'ws.tar'));
    await expect(receiveArtifact(createReadStream(packed.path), join(dir, 'c1.tar'), packed.bytes, '0'.repeat(64), 'artifact 0')).rejects.toThrow(/artifact 0: sha256 [0-9a-f]{64} is not the announced 0{64}/);
    await expect(receiveArtifact(createReadStream(packed.path), join(dir, 'c2.tar'), 1000, packed.sha256, 'artifact 0')).rejects.toThrow(ArtifactError);
  });

  it('writes nothing outside the root from a hostile tar', async () => {
    const archive = pack();
    archive.entry({ name: '../escape', type: 'file', size: 1 }, 'x');
    archive.entry({ name: 'out', type: 'symlink', linkname: '/etc' });
    archive.entry({ name: 'out/passwd', type: 'file', size: 1 }, 'x');
    archive.entry({ name: 'dev', type: 'character-device' });
    archive.finalize();
    const chunks: Buffer[] = [];
    for await (const chunk of archive as unknown as AsyncIterable<Buffer>) chunks.push(chunk);
    writeFileSync(join(dir, 'bad.tar'), Buffer.concat(chunks));
    const refusals = await unpackTar(join(dir, 'bad.tar'), join(dir, 'root'), { caps: CAPS, symlinks: false, modes: false });
    expect(refusals.join('\n')).toMatch(/"\.\.\/escape": '\.\.' in path/);
    expect(refusals.join('\n')).toMatch(/"out": symlink to "\/etc" refused/);
    expect(existsSync(join(dir, 'escape'))).toBe(false);
    expect(lstatSync(join(dir, 'root')).isDirectory()).toBe(true);
  });
});
