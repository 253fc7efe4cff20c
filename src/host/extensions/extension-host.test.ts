// The host's side alone, as a compromised worker would drive it: calls the sandbox side
// forged (names never registered, names the allowlist leaves out, malformed calls) run
// no handler and are refused in the audit log.

import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../protocol/audit/schema.js';
import { SessionAudit } from '../audit/session-audit.js';
import { ExtensionHost } from './extension-host.js';
import { resolveExtensions } from './spec.js';

function harness(allowedTools?: string[]) {
  const events: AuditEvent[] = [];
  const calls: string[] = [];
  const answers: Array<[string, number, string]> = [];
  const host = new ExtensionHost(
    resolveExtensions([{ name: 'lookup', description: 'lookup', handler: ({ args }) => { calls.push(args.join(' ')); return { stdout: 'found\n' }; } }]),
    { allowedTools, audit: new SessionAudit((event) => events.push(event), 'sb-test'), runId: () => 7 },
  );
  const api = {
    extensionRead: async () => new Uint8Array(0),
    extensionWrite: async (callId: number, stream: string, data: Uint8Array) => void answers.push([stream, callId, new TextDecoder().decode(data)]),
    extensionExit: async (callId: number, status: number, output?: { stdout?: Uint8Array; stderr?: Uint8Array }) => {
      for (const stream of ['stdout', 'stderr'] as const) if (output?.[stream]?.length) answers.push([stream, callId, new TextDecoder().decode(output[stream])]);
      answers.push(['exit', callId, String(status)]);
    },
  };
  return { host, api, events, calls, answers };
}

const call = (name: string, extra: Record<string, unknown> = {}) => ({ callId: 1, name, args: [], env: {}, cwd: '/home/user', ...extra }) as never;

describe('calls the worker forges', () => {
  it('runs the registered handler and records the call', async () => {
    const { host, api, events, calls, answers } = harness();
    await host.call(api, call('lookup', { args: ['a'] }));
    expect(calls).toEqual(['a']);
    expect(answers).toEqual([['stdout', 1, 'found\n'], ['exit', 1, '0']]);
    expect(events.filter((event) => event.type === 'extension.called')).toHaveLength(1);
  });

  it('refuses a name that was never registered (127), running nothing', async () => {
    const { host, api, events, calls, answers } = harness();
    await host.call(api, call('readSecrets'));
    expect(calls).toEqual([]);
    expect(answers).toEqual([['stderr', 1, 'airlock: readSecrets: no extension of that name is registered\n'], ['exit', 1, '127']]);
    expect(events.find((event) => event.type === 'extension.refused')).toMatchObject({ runId: 7, name: 'readSecrets', reason: 'no extension of that name is registered' });
  });

  it('refuses a registered name the host’s own allowlist leaves out (126), whatever the worker decided', async () => {
    const { host, api, calls, answers } = harness(['echo']);
    await host.call(api, call('lookup'));
    expect(calls).toEqual([]);
    expect(answers.at(-1)).toEqual(['exit', 1, '126']);
  });

  it('refuses a malformed call', async () => {
    const { host, api, calls, events } = harness();
    await host.call(api, call('lookup', { args: [{ toString: 'x' }] }));
    await host.call(api, call('lookup', { env: { A: 1 } }));
    expect(calls).toEqual([]);
    // Repeats of one refusal are coalesced (audit/emitter.ts): the first is reported at once.
    expect(events.filter((event) => event.type === 'extension.refused').map((event) => event.reason)).toContain('the call is malformed');
  });

  it('tells the worker names and descriptions only', () => {
    expect(harness().host.declarations).toEqual([{ name: 'lookup', description: 'lookup' }]);
  });
});
