// The trace signal: every program the run started and every endpoint it reached, against a
// baseline file. Any entry not in the baseline fails the signal, non-retryable (a new
// program or endpoint needs a human's review, ADR-P5-004), naming the entries.
//
// An entry's identity: `exec <path>` — for a shell started with -c, `exec <path> -c <command>`
// (a new shell invocation is new even when the shell is not); `connect <host>:<port>`;
// `request <METHOD> <scheme>://<host>` (the wasm backend sees requests, not sockets).
// Baseline file (JSON): { "entries": ["exec /usr/bin/node", "connect 10.0.2.100:3128", ...] }.

import { existsSync, readFileSync } from 'node:fs';
import type { SandboxRun, TraceEntry } from '../../backends/contract.js';
import type { GateSignal } from './signal.js';
import { evidencePath, readCapped } from './run-files.js';

const SHELLS = /(^|\/)(sh|bash|dash|ash|zsh)$/;

export function traceIdentity(entry: TraceEntry): string {
  if (entry.kind === 'exec') {
    const dashC = entry.argv.indexOf('-c');
    if (SHELLS.test(entry.path) && dashC > 0 && entry.argv[dashC + 1] !== undefined) return `exec ${entry.path} -c ${entry.argv[dashC + 1]}`;
    return `exec ${entry.path}`;
  }
  if (entry.kind === 'connect') return `connect ${entry.host}:${entry.port}`;
  let origin = entry.url;
  try {
    const url = new URL(entry.url);
    origin = `${url.protocol}//${url.host}`;
  } catch {
    // Keep the text as it came.
  }
  return `request ${entry.method} ${origin}`;
}

export function readTrace(path: string): TraceEntry[] {
  return readCapped(path)
    .split('\n')
    .filter((line) => line.trim() !== '')
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as TraceEntry];
      } catch {
        return [];
      }
    });
}

/** The set of identities a run observed (what a baseline file lists). */
export function observedIdentities(entries: TraceEntry[]): string[] {
  return [...new Set(entries.map(traceIdentity))].sort();
}

export function collectTraceSignal(run: SandboxRun, baselinePath: string): GateSignal {
  if (run.tracePath === null) return { kind: 'trace', passed: false, retryable: false, summary: 'the run was not traced (enableTrace is false)', details: {}, evidence: [] };
  const observed = observedIdentities(readTrace(run.tracePath));
  const evidence = [evidencePath(run, run.tracePath)];
  if (!existsSync(baselinePath)) {
    return {
      kind: 'trace', passed: false, retryable: false,
      summary: `no trace baseline at ${baselinePath}; this run observed ${observed.length} entries (review them in the trace, then save them as the baseline)`,
      details: { observed: observed.length, baseline: baselinePath }, evidence,
    };
  }
  let baseline: Set<string>;
  try {
    const parsed = JSON.parse(readFileSync(baselinePath, 'utf8')) as { entries?: unknown };
    if (!Array.isArray(parsed.entries) || !parsed.entries.every((entry) => typeof entry === 'string')) throw new Error('entries must be a list of strings');
    baseline = new Set(parsed.entries as string[]);
  } catch (error) {
    return { kind: 'trace', passed: false, retryable: false, summary: `trace baseline ${baselinePath} is invalid: ${(error as Error).message}`, details: { baseline: baselinePath }, evidence };
  }
  const added = observed.filter((identity) => !baseline.has(identity));
  const passed = added.length === 0;
  return {
    kind: 'trace', passed, retryable: false,
    summary: passed ? `${observed.length} entries, all in the baseline` : `${added.length} not in the baseline: ${added.slice(0, 5).join('; ')}${added.length > 5 ? '; …' : ''}`,
    details: { observed: observed.length, added: added.length, newEntries: added.slice(0, 20).join('\n') },
    evidence,
  };
}
