// Issue #17's figures: what the agent and MCP doors add to a command. Each is measured
// interleaved with its reference — the same command (`true`) run directly on a sandbox in
// this process — so both see the same machine load; the row names the difference.
// - agent bash tool call: the tool layer (arguments, the sandbox run under the phase's
//   policy and time budget, the result text) on the agent's own workspace; target ≤ 5 ms
//   over the command.
// - agent turn (information): the provider's answer (a scripted provider on loopback,
//   through the relay and the SDK, streamed; the conversation growing as in a real phase)
//   plus the tool call.
// - MCP `run` round trip over stdio (`airlock mcp` as a process) and streamable HTTP (the
//   server's /mcp); target ≤ 5 ms over the command.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Sandbox } from '../src/host/node/index.js';
import { executeAgent, phasePolicy } from '../server/agent/execute.js';
import { runTool } from '../server/agent/tools.js';
import { openSandboxWorkspace } from '../server/agent/workspace.js';
import { serverConfig, startServer } from '../server/main.js';
import { startFakeProvider } from '../tests/agent/fake-provider.js';
import { percentile, type BenchRow } from './report.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const SAMPLES = 300;
const WARMUP = 30;
const TURNS = 150;

/** p50 of `ours` and of `reference`, alternating one of each. */
async function interleaved(ours: () => Promise<void>, reference: () => Promise<void>): Promise<{ ours: number; reference: number }> {
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < WARMUP + SAMPLES; i++) {
    let t0 = performance.now();
    await ours();
    const x = performance.now() - t0;
    t0 = performance.now();
    await reference();
    const y = performance.now() - t0;
    if (i >= WARMUP) {
      a.push(x);
      b.push(y);
    }
  }
  return { ours: percentile(a, 0.5), reference: percentile(b, 0.5) };
}

function row(name: string, m: { ours: number; reference: number }, target = '≤ 5 ms over the command'): BenchRow {
  return { group: 'agents', name: `${name}, p50 (+${(m.ours - m.reference).toFixed(2)} ms)`, value: m.ours, unit: 'ms', reference: m.reference, referenceLabel: '`true` on a sandbox directly', target };
}

async function toolCall(direct: Sandbox): Promise<BenchRow> {
  const cwd = mkdtempSync(join(tmpdir(), 'airlock-bench-agent-'));
  const workspace = await openSandboxWorkspace(cwd, { network: phasePolicy({}, {}) }, undefined);
  const signal = new AbortController().signal;
  const call = { id: 'c', name: 'bash', input: { command: 'true' }, rawInput: '{"command":"true"}' };
  try {
    return row('agent bash tool call `true`', await interleaved(async () => void (await runTool(call, workspace, { timeoutMs: 60_000, signal })), async () => void (await direct.run('true'))));
  } finally {
    await workspace.close(false);
    rmSync(cwd, { recursive: true, force: true });
  }
}

async function agentTurns(direct: Sandbox): Promise<BenchRow> {
  const fake = await startFakeProvider((_request, n) => (n < TURNS ? { calls: [{ name: 'bash', input: { command: 'true' } }] } : { text: 'done' }));
  const cwd = mkdtempSync(join(tmpdir(), 'airlock-bench-agent-'));
  const marks: number[] = [];
  const references: number[] = [];
  try {
    // A direct run right after each turn, for the reference under the same load.
    const result = await executeAgent('bench', { cwd, model: 'anthropic/claude-sonnet-4-6', maxTurns: TURNS + 1, providers: { anthropic: { key: 'bench-key', upstream: fake.root } } }, {
      onEvent: (e) => {
        if (e.type === 'tool_execution_end') marks.push(performance.now());
      },
    });
    if (!result.success) throw new Error(`the agent failed: ${result.error ?? result.stopReason}`);
    for (let i = 0; i < TURNS; i++) {
      const t0 = performance.now();
      await direct.run('true');
      references.push(performance.now() - t0);
    }
  } finally {
    await fake.close();
    rmSync(cwd, { recursive: true, force: true });
  }
  const turns = marks.slice(10).map((t, i) => t - (marks[i + 9] as number));
  return row('agent turn: provider answer + bash tool call `true`', { ours: percentile(turns, 0.5), reference: percentile(references, 0.5) }, 'none (information)');
}

async function mcp(name: string, connect: (client: Client) => Promise<void>, direct: Sandbox): Promise<BenchRow> {
  const client = new Client({ name: 'airlock-bench', version: '1.0.0' });
  await connect(client);
  try {
    return row(name, await interleaved(async () => {
      const r = (await client.callTool({ name: 'run', arguments: { command: 'true' } })) as { structuredContent?: { exitCode?: number } };
      if (r.structuredContent?.exitCode !== 0) throw new Error('run true failed');
    }, async () => void (await direct.run('true'))));
  } finally {
    await client.close();
  }
}

export async function run(): Promise<BenchRow[]> {
  const direct = await Sandbox.create();
  const dir = mkdtempSync(join(tmpdir(), 'airlock-bench-mcp-'));
  const token = 'bench-mcp-token-0123456789abcdef';
  writeFileSync(join(dir, 'token'), token);
  const server = await startServer(serverConfig({ server: { port: 0, web: join(dir, 'web') }, log: { level: 'silent' }, mcp: { tokenFile: join(dir, 'token') } }));
  try {
    const rows = [
      await toolCall(direct),
      await agentTurns(direct),
      await mcp('MCP run `true` over stdio', (c) => c.connect(new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', join(root, 'tests/mcp/cli-entry.ts'), 'mcp'], cwd: root, stderr: 'ignore' })), direct),
      await mcp('MCP run `true` over HTTP /mcp', (c) => c.connect(new StreamableHTTPClientTransport(new URL('mcp', server.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } })), direct),
    ];
    rows.push({ group: 'agents', name: 'machine load average (1 min) at their end', value: loadavg()[0] as number, unit: '' });
    return rows;
  } finally {
    await server.close();
    await direct.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}
