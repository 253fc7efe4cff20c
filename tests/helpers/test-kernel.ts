// Builds a kernel in-process (no worker) with the test programs, for kernel unit tests.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Kernel, type KernelEvents } from '../../src/kernel/kernel.js';
import type { ExternalProgram } from '../../src/kernel/sys/external-program.js';
import { DEFAULT_LIMITS, type SandboxLimits } from '../../src/protocol/limits.js';
import { PROTOCOL_VERSION, type ModuleSpec, type RunReply } from '../../src/protocol/messages.js';

const probeBytes = readFileSync(fileURLToPath(new URL('../wasm/probe.wasm', import.meta.url)));
const probeModule = new WebAssembly.Module(probeBytes);

/** The probe module's spec, as init gets it (or KernelApi.provideModules, when deferred). */
export function probeSpec(asyncifyBytes?: number): ModuleSpec {
  return { name: 'probe', tools: ['probe'], module: probeModule, bytes: probeBytes, asyncifyBytes };
}

export interface TestKernel {
  kernel: Kernel;
  run(argv: string[], options?: { stdin?: string; timeoutMs?: number; cwd?: string; terminal?: boolean; terminalSize?: { cols: number; rows: number } }): Promise<RunReply & { out: string; err: string }>;
}

function decodeAll(chunks: Uint8Array[]): string {
  const decoder = new TextDecoder();
  return chunks.map((chunk) => decoder.decode(chunk, { stream: true })).join('') + decoder.decode();
}

export function createTestKernel(options: { limits?: Partial<SandboxLimits>; allowedTools?: string[] | null; externals?: Array<{ tools: string[]; program: ExternalProgram }>; events?: Pick<KernelEvents, 'exec' | 'refused' | 'terminalMode' | 'runClock'>; asyncifyBytes?: number; /** The probe module is sent later (kernel.provideModules). */ deferProbe?: boolean } = {}): TestKernel {
  // The output the kernel streams, by run (the reply only says how a run ended).
  const outputs = new Map<number, { stdout: Uint8Array[]; stderr: Uint8Array[] }>();
  const kernel = new Kernel(
    {
      protocolVersion: PROTOCOL_VERSION,
      modules: [options.deferProbe === true ? { name: 'probe', tools: ['probe'], deferred: true } : probeSpec(options.asyncifyBytes)],
      limits: { ...DEFAULT_LIMITS, ...(options.limits ?? {}) },
      allowedTools: options.allowedTools ?? null,
      hostname: 'sandbox',
      env: {},
    },
    { output: (runId, stream, data) => outputs.get(runId)?.[stream].push(data), netRequest: (id) => kernel.net.deliverHead(id, { ok: false, failure: 'refused', message: 'no network in kernel unit tests' }), ...options.events },
    options.externals ?? [],
  );
  let runId = 0;
  return {
    kernel,
    async run(argv, runOptions = {}) {
      const id = ++runId;
      const streams = { stdout: [] as Uint8Array[], stderr: [] as Uint8Array[] };
      outputs.set(id, streams);
      const reply = await kernel.run({
        runId: id,
        command: argv,
        timeoutMs: runOptions.timeoutMs ?? 10_000,
        stdin: runOptions.stdin === undefined ? undefined : new TextEncoder().encode(runOptions.stdin),
        cwd: runOptions.cwd,
        terminal: runOptions.terminal,
        terminalSize: runOptions.terminalSize,
      });
      outputs.delete(id);
      return Object.assign(reply, { out: decodeAll(streams.stdout), err: decodeAll(streams.stderr) });
    },
  };
}
