// The agent's tools — bash, read, write, edit — acting on its workspace (the sandbox). Every
// result is text for the model; failures (a bad call, a missing file, an edit that does not
// apply) are results marked as errors that name the problem, so the model can correct itself.
// Output past AGENT_LIMITS.toolOutputBytes is cut, and the cut says so.

import { ReplaceError, replaceExact } from '../../src/host/replace-exact.js';
import { AGENT_LIMITS } from '../../src/protocol/limits.js';
import type { ToolCall, ToolSpec } from './model.js';
import type { AgentWorkspace } from './workspace.js';

export const AGENT_TOOLS: readonly ToolSpec[] = [
  {
    name: 'bash',
    description: 'Run a bash command line in the workspace (the sandbox: bash, coreutils, python3). Returns the exit code, stdout and stderr.',
    parameters: { properties: { command: { type: 'string', description: 'The command line' }, timeout_ms: { type: 'integer', description: 'Time limit in milliseconds' } }, required: ['command'] },
  },
  {
    name: 'read',
    description: 'Read a text file of the workspace.',
    parameters: { properties: { path: { type: 'string' } }, required: ['path'] },
  },
  {
    name: 'write',
    description: 'Write a text file (created with its directories, or replaced).',
    parameters: { properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'] },
  },
  {
    name: 'edit',
    description: 'Replace exact text in a file: old_string must occur exactly once (unless replace_all); otherwise nothing changes and the error says why.',
    parameters: {
      properties: { path: { type: 'string' }, old_string: { type: 'string' }, new_string: { type: 'string' }, replace_all: { type: 'boolean' } },
      required: ['path', 'old_string', 'new_string'],
    },
  },
];

export class ToolCallError extends Error {}

/** Text cut to `limit` bytes (UTF-8), with a line saying how much was left out. */
export function capOutput(text: string, limit = AGENT_LIMITS.toolOutputBytes): string {
  const bytes = Buffer.from(text);
  if (bytes.length <= limit) return text;
  const kept = bytes.subarray(0, limit).toString('utf8').replace(/\uFFFD$/, '');
  return `${kept}\n[output cut: ${bytes.length} bytes, over the tool output cap of ${limit} bytes (AGENT_LIMITS.toolOutputBytes); narrow the command (head, grep, sed -n) to see the rest]`;
}

function stringArg(call: ToolCall, name: string, optional = false): string | undefined {
  const value = call.input?.[name];
  if (value === undefined && optional) return undefined;
  if (typeof value !== 'string') throw new ToolCallError(`${call.name}: argument ${name} must be a string${value === undefined ? ' (it is missing)' : ''}`);
  return value;
}

export interface ToolOutcome {
  output: string;
  isError: boolean;
}

export async function runTool(call: ToolCall, workspace: AgentWorkspace, options: { timeoutMs: number; signal: AbortSignal }): Promise<ToolOutcome> {
  if (call.input === undefined) {
    return { output: `malformed tool call: the arguments of ${call.name} are not a JSON object (got ${JSON.stringify(call.rawInput.slice(0, 200))}); call it again with valid JSON`, isError: true };
  }
  try {
    switch (call.name) {
      case 'bash': {
        const command = stringArg(call, 'command') as string;
        const asked = call.input.timeout_ms;
        const timeoutMs = typeof asked === 'number' && asked > 0 ? Math.min(asked, options.timeoutMs) : options.timeoutMs;
        const r = await workspace.run(command, timeoutMs, options.signal);
        const parts = [`exit code: ${r.exitCode}`];
        if (r.stdout !== '') parts.push(`stdout:\n${r.stdout}`);
        if (r.stderr !== '') parts.push(`stderr:\n${r.stderr}`);
        if (r.truncated) parts.push('[the sandbox cut this output at its stdoutBytes/stderrBytes limit]');
        return { output: capOutput(parts.join('\n')), isError: r.exitCode !== 0 };
      }
      case 'read':
        return { output: capOutput(await workspace.readText(stringArg(call, 'path') as string)), isError: false };
      case 'write': {
        const path = stringArg(call, 'path') as string;
        const content = stringArg(call, 'content') as string;
        await workspace.writeText(path, content);
        return { output: `wrote ${Buffer.byteLength(content)} bytes to ${path}`, isError: false };
      }
      case 'edit': {
        const path = stringArg(call, 'path') as string;
        const updated = replaceExact(await workspace.readText(path), stringArg(call, 'old_string') as string, stringArg(call, 'new_string') as string, call.input.replace_all === true);
        await workspace.writeText(path, updated);
        return { output: `edited ${path}`, isError: false };
      }
      default:
        return { output: `no tool named ${JSON.stringify(call.name)} (have: ${AGENT_TOOLS.map((t) => t.name).join(', ')})`, isError: true };
    }
  } catch (error) {
    if (options.signal.aborted) throw error;
    const message = error instanceof ToolCallError || error instanceof ReplaceError ? error.message : `${(error as Error).name}: ${(error as Error).message}`;
    return { output: capOutput(message), isError: true };
  }
}
