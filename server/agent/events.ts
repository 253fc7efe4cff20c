// The agent's event log: one JSONL file per session in sessionsDir (`<sessionId>.jsonl`),
// each line an envelope { type, sessionId, timestamp, ... } with the seed's types — session,
// message_end, tool_execution_end, usage_snapshot, fatal_error — and the same moments in the
// audit trail (agent.started, agent.turn, agent.tool_call, agent.usage, agent.ended; source
// 'agent'). Events carry what happened, never a key: the only credential the loop holds is
// the relay's run token, which is never written.

import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { AuditEmitter, type AuditListener } from '../../src/host/audit/emitter.js';
import type { AuditDraft, AuditSource } from '../../src/protocol/audit/schema.js';

/** Where audit events go: the server's store (context.audit) or anything with its record(). */
export interface AgentAuditSink {
  record(draft: AuditDraft, options: { sessionId?: string | null; source?: AuditSource }): void;
}

/** An audit sink over a listener of whole events (a file sink's): one emitter per session. */
export function listenerAuditSink(listener: AuditListener): AgentAuditSink & { flush(): void } {
  const emitters = new Map<string | null, AuditEmitter>();
  return {
    record(draft, options) {
      const sessionId = options.sessionId ?? null;
      let emitter = emitters.get(sessionId);
      if (emitter === undefined) emitters.set(sessionId, (emitter = new AuditEmitter({ sessionId, listener, source: 'agent' })));
      emitter.emit(draft, { source: options.source ?? 'agent' });
    },
    flush() {
      for (const emitter of emitters.values()) emitter.flush();
    },
  };
}

export type AgentEvent =
  | { type: 'session'; model: string; cwd: string; sandbox: string; taskId: string | null; profile: string | null; egress: 'strict' | 'open' }
  | { type: 'message_end'; turn: number; message: { role: 'user' | 'assistant'; content: unknown } }
  | { type: 'tool_execution_end'; turn: number; toolCallId: string; toolName: string; isError: boolean; durationMs: number; result: string }
  | { type: 'usage_snapshot'; turn: number; inputTokens: number; outputTokens: number; cacheTokens: number; costUsd: number | null; total: { inputTokens: number; outputTokens: number; cacheTokens: number; costUsd: number | null } }
  | { type: 'fatal_error'; error: string; stopReason: string };

export class AgentEventLog {
  private readonly file: WriteStream | undefined;
  readonly path: string | undefined;

  constructor(
    readonly sessionId: string,
    private readonly model: string,
    sessionsDir: string | undefined,
    private readonly audit: AgentAuditSink | undefined,
    private readonly onEvent: ((event: AgentEvent & { sessionId: string; timestamp: string }) => void) | undefined,
  ) {
    if (sessionsDir !== undefined) {
      mkdirSync(sessionsDir, { recursive: true });
      this.path = join(sessionsDir, `${sessionId}.jsonl`);
      this.file = createWriteStream(this.path, { flags: 'a', mode: 0o600 });
    }
  }

  emit(event: AgentEvent): void {
    const envelope = { ...event, sessionId: this.sessionId, timestamp: new Date().toISOString() };
    this.file?.write(`${JSON.stringify(envelope)}\n`);
    this.onEvent?.(envelope);
    this.toAudit(event);
  }

  private toAudit(event: AgentEvent): void {
    if (this.audit === undefined) return;
    const at = { sessionId: this.sessionId, source: 'agent' as const };
    const agentId = this.sessionId;
    if (event.type === 'session') this.audit.record({ type: 'agent.started', agentId, model: this.model, sandbox: event.sandbox, egress: event.egress, profile: event.profile, taskId: event.taskId }, at);
    else if (event.type === 'message_end' && event.message.role === 'assistant') this.audit.record({ type: 'agent.turn', agentId, turn: event.turn, model: this.model }, at);
    else if (event.type === 'tool_execution_end') this.audit.record({ type: 'agent.tool_call', agentId, turn: event.turn, tool: event.toolName, allowed: true, reason: event.isError ? 'the tool reported an error' : null, durationMs: event.durationMs }, at);
    else if (event.type === 'usage_snapshot') this.audit.record({ type: 'agent.usage', agentId, turn: event.turn, model: this.model, inputTokens: event.inputTokens, outputTokens: event.outputTokens, costUsd: event.costUsd }, at);
  }

  /** The phase's end, in the audit trail (the JSONL log ends with its last event). */
  ended(result: { success: boolean; stopReason: string; turns: number; error: string | null; costUsd: number | null; durationMs: number }): void {
    this.audit?.record({ type: 'agent.ended', agentId: this.sessionId, ...result }, { sessionId: this.sessionId, source: 'agent' });
  }

  close(): Promise<void> {
    const file = this.file;
    if (file === undefined) return Promise.resolve();
    return new Promise((resolve) => file.end(resolve));
  }
}
