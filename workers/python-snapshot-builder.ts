// Makes the Python memory snapshot for Node sandboxes (started by src/host/python/
// node-snapshot.ts): boots a Python worker exactly as a sandbox child would — same worker
// script, same hardened realm, same flags — with no user code at all, and writes what it
// returns to the file named by --out (through a temporary file, so a reader never sees
// half of one). The sandbox children only ever read the result.

import { renameSync, writeFileSync } from 'node:fs';
import { ChannelHost } from '../src/kernel/python/channel.js';
import type { PythonRequest } from '../src/kernel/python/protocol.js';
import { nodePythonWorkerFactory } from './python-node-host.js';

const argument = (name: string): string | undefined => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const out = argument('out');
const pyodideDir = argument('pyodide-dir');
if (out === undefined || pyodideDir === undefined) {
  process.stderr.write('usage: python-snapshot.mjs --out=FILE --pyodide-dir=DIR\n');
  process.exit(2);
}

const channel = ChannelHost.create();
const factory = nodePythonWorkerFactory(pyodideDir, new URL('./python-worker.mjs', import.meta.url), { makeSnapshot: true });
const worker = factory({ channel: channel.buffer, interrupt: new SharedArrayBuffer(4) });
let snapshot: Uint8Array | undefined;
const fail = (message: string): never => {
  process.stderr.write(`python snapshot: ${message}\n`);
  worker.terminate();
  process.exit(1);
};
void worker.failed.then((reason) => fail(reason));
for (;;) {
  const message = await channel.next();
  if (message === undefined) fail('the channel closed');
  const request = message?.json as PythonRequest;
  if (request.op === 'snapshotPart') {
    snapshot ??= new Uint8Array(request.total);
    snapshot.set(message?.data ?? new Uint8Array(0), request.offset);
    channel.answer({ json: { ok: true } });
  } else if (request.op === 'exit' && snapshot !== undefined) {
    const temporary = `${out}.${process.pid}.tmp`;
    writeFileSync(temporary, snapshot);
    renameSync(temporary, out);
    worker.terminate();
    process.exit(0);
  } else if (request.op === 'fatal') {
    fail(request.message);
  } else {
    fail(`unexpected request ${request.op}`);
  }
}
