// Builds a kernel in-process (no worker) with the test programs, for kernel unit tests.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Kernel } from '../../src/kernel/kernel.js';
import type { ExternalProgram } from '../../src/kernel/proc/module-registry.js';
import { DEFAULT_LIMITS, type SandboxLimits } from '../../src/protocol/limits.js';
import { PROTOCOL_VERSION, type RunReply } from '../../src/protocol/messages.js';

const probeBytes = readFileSync(fileURLToPath(new URL('../wasm/probe.wasm', import.meta.url)));
const probeModule = new WebAssembly.Module(probeBytes);

export interface TestKernel {
  kernel: Kernel;
  run(argv: string[], options?: { stdin?: string; timeoutMs?: number; cwd?: string }): Promise<RunReply & { out: string; err: string }>;
}

export function createTestKernel(options: { limits?: Partial<SandboxLimits>; allowedTools?: string[] | null; externals?: Array<{ tools: string[]; program: ExternalProgram }> } = {}): TestKernel {
  const kernel = new Kernel(
    {
      protocolVersion: PROTOCOL_VERSION,
      modules: [{ name: 'probe', tools: ['probe'], module: probeModule, bytes: probeBytes }],
      limits: { ...DEFAULT_LIMITS, ...(options.limits ?? {}) },
      allowedTools: options.allowedTools ?? null,
      hostname: 'sandbox',
      env: {},
    },
    { output: () => {}, netRequest: (id) => kernel.net.deliverHead(id, { ok: false, failure: 'refused', message: 'no network in kernel unit tests' }) },
    options.externals ?? [],
  );
  let runId = 0;
  return {
    kernel,
    async run(argv, runOptions = {}) {
      const reply = await kernel.run({
        runId: ++runId,
        command: argv,
        timeoutMs: runOptions.timeoutMs ?? 10_000,
        stdin: runOptions.stdin === undefined ? undefined : new TextEncoder().encode(runOptions.stdin),
        cwd: runOptions.cwd,
      });
      return { ...reply, out: new TextDecoder().decode(reply.stdout), err: new TextDecoder().decode(reply.stderr) };
    },
  };
}
