// The MCP tools a client gets (docs/mcp.md): its sandbox as run / read_file / write_file /
// edit_file / list_files / snapshot / restore / fork / close_fork / run_gate. Every tool
// names the sandbox it acts on (`sandbox`, default 'main': the client's own; forks by the
// name fork returned). Failures come back as tool errors (isError) naming the problem.

import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { MCP_LIMITS } from '../../src/protocol/limits.js';
import type { RunGateOptions } from './run-gate.js';
import { runGateOnSandbox } from './run-gate.js';
import { McpToolError, type McpSession } from './session.js';
import { ReplaceError, replaceExact } from '../../src/host/replace-exact.js';

const sandboxName = z.string().optional().describe("Which sandbox: 'main' (default, this session's own) or a fork's name");

function text(value: unknown): CallToolResult {
  return { content: [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value, null, 2) }] };
}

function structured(value: Record<string, unknown>): CallToolResult {
  return { ...text(value), structuredContent: value };
}

/** Runs a tool body; errors become tool errors (isError) with their message, never a crash. */
async function guarded(session: McpSession, body: () => Promise<CallToolResult>): Promise<CallToolResult> {
  session.lastActive = Date.now();
  try {
    return await body();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { content: [{ type: 'text', text: error instanceof McpToolError || error instanceof ReplaceError ? message : `${(error as Error).name ?? 'Error'}: ${message}` }], isError: true };
  }
}

export function registerSandboxTools(server: McpServer, session: McpSession, gate: RunGateOptions = {}): void {
  server.registerTool(
    'run',
    {
      description: 'Run a bash command line in the sandbox (a bash-compatible shell with coreutils and python3, no host access). Returns exit code, stdout, stderr and whether output was cut at the sandbox limits.',
      inputSchema: {
        command: z.string().min(1).describe('The command line (bash syntax)'),
        timeout_ms: z.number().int().positive().optional().describe('Time limit for this run (default: the sandbox limit)'),
        stdin: z.string().optional().describe('Bytes given on standard input'),
        cwd: z.string().optional().describe('Working directory (default /home/user)'),
        sandbox: sandboxName,
      },
      outputSchema: { exitCode: z.number(), stdout: z.string(), stderr: z.string(), truncated: z.boolean() },
    },
    ({ command, timeout_ms, stdin, cwd, sandbox }) =>
      guarded(session, async () => {
        const result = await session.sandbox(sandbox).run(command, { ...(timeout_ms === undefined ? {} : { timeoutMs: timeout_ms }), ...(stdin === undefined ? {} : { stdin }), ...(cwd === undefined ? {} : { cwd }) });
        return structured({ exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr, truncated: result.truncated });
      }),
  );

  server.registerTool(
    'read_file',
    { description: `Read a text file from the sandbox (at most ${MCP_LIMITS.readFileBytes} bytes).`, inputSchema: { path: z.string().min(1), sandbox: sandboxName } },
    ({ path, sandbox }) =>
      guarded(session, async () => {
        const box = session.sandbox(sandbox);
        const info = await box.stat(path);
        if (info.kind === 'dir') throw new McpToolError(`${path} is a directory: use list_files`);
        if (info.size > MCP_LIMITS.readFileBytes) throw new McpToolError(`${path} is ${info.size} bytes, larger than read_file's ${MCP_LIMITS.readFileBytes} (MCP_LIMITS.readFileBytes): read part of it with run (head, sed -n)`);
        return text(await box.readTextFile(path));
      }),
  );

  server.registerTool(
    'write_file',
    { description: 'Write a text file in the sandbox (created with its parent directories, or replaced).', inputSchema: { path: z.string().min(1), content: z.string(), sandbox: sandboxName } },
    ({ path, content, sandbox }) =>
      guarded(session, async () => {
        await session.sandbox(sandbox).writeFile(path, content, { parents: true });
        return text(`wrote ${Buffer.byteLength(content)} bytes to ${path}`);
      }),
  );

  server.registerTool(
    'edit_file',
    {
      description: 'Replace exact text in a sandbox file. old_string must occur exactly once (unless replace_all); the tool fails, changing nothing, when it is absent or not unique.',
      inputSchema: { path: z.string().min(1), old_string: z.string(), new_string: z.string(), replace_all: z.boolean().optional(), sandbox: sandboxName },
    },
    ({ path, old_string, new_string, replace_all, sandbox }) =>
      guarded(session, async () => {
        const box = session.sandbox(sandbox);
        const updated = replaceExact(await box.readTextFile(path), old_string, new_string, replace_all === true);
        await box.writeFile(path, updated);
        return text(`edited ${path}`);
      }),
  );

  server.registerTool(
    'list_files',
    { description: 'List a sandbox directory (default /home/user): names, kinds and sizes; recursive optionally.', inputSchema: { path: z.string().optional(), recursive: z.boolean().optional(), sandbox: sandboxName } },
    ({ path, recursive, sandbox }) =>
      guarded(session, async () => {
        const box = session.sandbox(sandbox);
        const entries: Array<{ path: string; kind: string; size: number }> = [];
        const walk = async (dir: string): Promise<void> => {
          for (const entry of await box.readDir(dir)) {
            if (entries.length >= MCP_LIMITS.listEntries) return;
            const full = dir === '/' ? `/${entry.name}` : `${dir}/${entry.name}`;
            const info = await box.stat(full, { follow: false });
            entries.push({ path: full, kind: entry.kind, size: info.size });
            if (recursive === true && entry.kind === 'dir') await walk(full);
          }
        };
        await walk(path ?? '/home/user');
        return structured({ entries, truncated: entries.length >= MCP_LIMITS.listEntries });
      }),
  );

  server.registerTool(
    'snapshot',
    { description: "Take a snapshot of a sandbox's files and shell state; returns its id for restore.", inputSchema: { sandbox: sandboxName } },
    ({ sandbox }) => guarded(session, async () => structured({ snapshotId: await session.sandbox(sandbox).snapshot() })),
  );

  server.registerTool(
    'restore',
    { description: 'Put a sandbox back to a snapshot it took.', inputSchema: { snapshot_id: z.number().int(), sandbox: sandboxName } },
    ({ snapshot_id, sandbox }) =>
      guarded(session, async () => {
        await session.sandbox(sandbox).restore(snapshot_id);
        return text(`restored snapshot ${snapshot_id}`);
      }),
  );

  server.registerTool(
    'fork',
    { description: `Fork a sandbox (a copy of its files and shell state that goes its own way); returns the fork's name for the other tools. At most ${MCP_LIMITS.maxForks} forks per session.`, inputSchema: { sandbox: sandboxName } },
    ({ sandbox }) => guarded(session, async () => structured({ sandbox: await session.fork(sandbox) })),
  );

  server.registerTool(
    'close_fork',
    { description: 'End a fork and free it.', inputSchema: { sandbox: z.string().min(1) } },
    ({ sandbox }) =>
      guarded(session, async () => {
        await session.closeFork(sandbox);
        return text(`closed ${sandbox}`);
      }),
  );

  server.registerTool(
    'run_gate',
    {
      description: "Put the sandbox's /home/user through a gate (tests, build, strict) once: its workspace commands run in a fresh gate sandbox; returns the outcome (passed, or the failure to fix) and the ledger path.",
      inputSchema: { gate: z.string().min(1).describe('Gate id: tests, build or strict'), sandbox: sandboxName },
    },
    ({ gate: gateId, sandbox }) =>
      guarded(session, async () => {
        const outcome = await runGateOnSandbox(session.sandbox(sandbox), gateId, gate);
        const result = structured({ outcome: outcome.outcome, exitCode: outcome.exitCode, reason: outcome.reason, failure: outcome.attempts.at(-1)?.failureSummary ?? null, ledgerPath: outcome.ledgerPath });
        return outcome.outcome === 'passed' ? result : { ...result, isError: true };
      }),
  );
}
