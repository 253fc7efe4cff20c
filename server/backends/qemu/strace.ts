// strace's output (-f -e trace=execve,connect, written by the guest agent) as normalized
// trace entries. The text comes from the guest, so it is parsed strictly: a line that does
// not match is skipped, never trusted; only successful execs and inet connects count.

import type { TraceEntry } from '../contract.js';

const EXEC = /^(?:\[pid\s+)?\d*\]?\s*execve\("((?:[^"\\]|\\.)*)", \[((?:"(?:[^"\\]|\\.)*"(?:, )?)*)(?:\.\.\.)?\], .*\) = 0$/;
const CONNECT = /^(?:\[pid\s+)?\d*\]?\s*connect\(\d+, \{sa_family=AF_INET6?, sin6?_port=htons\((\d+)\), (?:sin_addr=inet_addr\("([0-9.]+)"\)|sin6_flowinfo=[^,]*, inet_pton\(AF_INET6, "([0-9a-f:.]+)", &sin6_addr\))[^}]*\}, \d+\) = (?:0|-1 EINPROGRESS.*)$/;
const STRING = /"((?:[^"\\]|\\.)*)"/g;

function unescape(text: string): string {
  return text.replace(/\\(x[0-9a-f]{2}|[0-7]{1,3}|.)/g, (_, code: string) => {
    if (code.startsWith('x')) return String.fromCharCode(parseInt(code.slice(1), 16));
    if (/^[0-7]+$/.test(code)) return String.fromCharCode(parseInt(code, 8));
    return ({ n: '\n', t: '\t', r: '\r', '"': '"', '\\': '\\' } as Record<string, string>)[code] ?? code;
  });
}

export function parseStrace(text: string): TraceEntry[] {
  const entries: TraceEntry[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/^\d+\s+/, '').trimEnd();
    const exec = EXEC.exec(line);
    if (exec !== null) {
      const argv = [...(exec[2] ?? '').matchAll(STRING)].map((match) => unescape(match[1] ?? ''));
      entries.push({ kind: 'exec', path: unescape(exec[1] ?? ''), argv });
      continue;
    }
    const connect = CONNECT.exec(line);
    if (connect !== null) entries.push({ kind: 'connect', host: connect[2] ?? connect[3] ?? '', port: Number(connect[1]) });
  }
  return entries;
}

/**
 * One phase's trace: the agent starts each phase as `env -i VARS... ARGV` under strace, so
 * the first exec is the agent's own wrapper, not the workload's; it is left out.
 */
export function phaseTrace(text: string): TraceEntry[] {
  const entries = parseStrace(text);
  const first = entries[0];
  const wrapper = first?.kind === 'exec' && first.path === '/usr/bin/env' && first.argv[1] === '-i';
  return wrapper ? entries.slice(1) : entries;
}
