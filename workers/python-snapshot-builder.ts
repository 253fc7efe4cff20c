// Makes the Python memory snapshot for Node sandboxes (started by src/host/python/
// node-snapshot.ts): boots a Python worker exactly as a sandbox child would — same worker
// script, same hardened realm, same flags — with no user code at all, and writes what it
// returns to the file named by --out (through a temporary file, so a reader never sees
// half of one). The sandbox children only ever read the result.

import { renameSync, writeFileSync } from 'node:fs';
import { ChannelServer } from '../src/kernel/python/channel.js';
import { collectSnapshot } from '../src/kernel/python/snapshot-collector.js';
import { nodePythonWorkerFactory } from '../src/kernel/python/node-launcher.js';

const argument = (name: string): string | undefined => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const out = argument('out');
const pyodideDir = argument('pyodide-dir');
if (out === undefined || pyodideDir === undefined) {
  process.stderr.write('usage: python-snapshot.mjs --out=FILE --pyodide-dir=DIR\n');
  process.exit(2);
}

const channel = ChannelServer.create();
const factory = nodePythonWorkerFactory(pyodideDir, new URL('./python-worker.mjs', import.meta.url), { makeSnapshot: true });
const worker = factory({ channel: channel.buffer, interrupt: new SharedArrayBuffer(4) });
const outcome = await collectSnapshot(channel, worker.failed);
worker.terminate();
if (!outcome.ok) {
  process.stderr.write(`python snapshot: ${outcome.reason}\n`);
  process.exit(1);
}
const temporary = `${out}.${process.pid}.tmp`;
writeFileSync(temporary, outcome.snapshot);
renameSync(temporary, out);
process.exit(0);
