// Gate backends: start → exit of `true` per backend, cold and warm (targets: wasm ≤ 50 ms;
// qemu warm ≤ 0.15 × its cold boot in the same run), a small test suite end to end, and
// vmSeconds per gate. Backends that cannot run here are left out with their reason;
// AIRLOCK_BENCH_GATES=wasm measures the wasm backend only (qemu under TCG takes minutes).

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SandboxClient } from '../server/backends/contract.js';
import { createSandboxClient } from '../server/backends/registry.js';
import { parseSandboxSpec } from '../server/backends/spec.js';
import { QemuSandboxClient } from '../server/backends/qemu/qemu-client.js';
import { BUILTIN_CATALOG, loadCatalog } from '../server/gates/catalog.js';
import { GateRunner } from '../server/gates/runner.js';
import type { BenchRow } from './report.js';

const TRUE_SPEC = parseSandboxSpec({ label: 'bench-true', timeBudgetSeconds: 60, memoryLimitMiB: 256, phases: [{ name: 'true', argv: ['true'] }] });

async function startToExit(client: SandboxClient, runsDir: string): Promise<number> {
  const started = performance.now();
  await client.execute(TRUE_SPEC, { runsDir });
  return performance.now() - started;
}

function smallSuite(root: string): string {
  const ws = join(root, 'suite');
  mkdirSync(join(ws, 'tests'), { recursive: true });
  // Named, since test_*.py alone means pytest, which only the qemu guest has.
  mkdirSync(join(ws, '.airlock'), { recursive: true });
  writeFileSync(join(ws, '.airlock/gate.yaml'), 'test: python3 -m unittest discover -s tests -v\n');
  writeFileSync(join(ws, 'tests/test_math.py'), 'import unittest\n\nclass T(unittest.TestCase):\n' + Array.from({ length: 10 }, (_, i) => `    def test_${i}(self):\n        self.assertEqual(${i} + ${i}, ${2 * i})\n`).join(''));
  return ws;
}

export async function run(): Promise<BenchRow[]> {
  const root = mkdtempSync(join(tmpdir(), 'airlock-bench-gates-'));
  const rows: BenchRow[] = [];
  try {
    const wasm = createSandboxClient('wasm');
    const wasmCold = await startToExit(wasm, join(root, 'runs'));
    const warmSamples: number[] = [];
    for (let i = 0; i < 5; i++) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      warmSamples.push(await startToExit(wasm, join(root, 'runs')));
    }
    const wasmWarm = Math.min(...warmSamples);
    rows.push({ group: 'gates', name: 'wasm: start → exit of true, cold', value: wasmCold, unit: 'ms' });
    rows.push({ group: 'gates', name: 'wasm: start → exit of true, warm (best of 5)', value: wasmWarm, unit: 'ms', target: '≤ 50 ms' });

    const selected = (process.env.AIRLOCK_BENCH_GATES ?? 'wasm,qemu').split(',');
    const qemuHealth = selected.includes('qemu')
      ? await new QemuSandboxClient().health()
      : { reachable: false, reasons: ['not selected (AIRLOCK_BENCH_GATES)'], details: {} as Record<string, string> };
    if (qemuHealth.reachable) {
      const cold = await startToExit(new QemuSandboxClient({ warm: false }), join(root, 'runs'));
      const warmClient = new QemuSandboxClient({ warm: true });
      await startToExit(warmClient, join(root, 'runs')); // makes the snapshot if there is none
      // The median of three: on a shared machine one restore can wait seconds for a core.
      const qemuWarm: number[] = [];
      for (let i = 0; i < 3; i++) qemuWarm.push(await startToExit(warmClient, join(root, 'runs')));
      const warm = [...qemuWarm].sort((a, b) => a - b)[1] as number;
      rows.push({ group: 'gates', name: `qemu (${qemuHealth.details.accel ?? '?'}): start → exit of true, cold boot`, value: cold, unit: 'ms' });
      rows.push({ group: 'gates', name: 'qemu: start → exit of true, warm (snapshot restore, median of 3)', value: warm, unit: 'ms', reference: cold, referenceLabel: 'cold boot, same run', target: '≤ 0.15 × cold' });
    } else {
      console.log(`bench: gates: qemu left out: ${qemuHealth.reasons.join('; ')}`);
    }

    const gate = loadCatalog([BUILTIN_CATALOG]).get('tests');
    if (gate !== undefined) {
      for (const backend of qemuHealth.reachable ? (['wasm', 'qemu'] as const) : (['wasm'] as const)) {
        const started = performance.now();
        const outcome = await new GateRunner({ gate, workspace: smallSuite(root), client: createSandboxClient(backend), gatesDir: join(root, 'gates') }).run();
        rows.push({ group: 'gates', name: `${backend}: tests gate, 10 unittest cases end to end (${outcome.outcome})`, value: performance.now() - started, unit: 'ms' });
        rows.push({ group: 'gates', name: `${backend}: vmSeconds of that gate`, value: outcome.attempts.reduce((sum, a) => sum + a.cost.vmSeconds, 0), unit: 's' });
      }
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return rows;
}
