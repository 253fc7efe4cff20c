// What a Sandbox tells its audit listener: one method per thing that happened, shaping
// the event (bounded command, limits, the kernel's refusal tallies checked before they are
// believed). Sandbox calls these; with no listener every method returns at once.

import type { AuditDraft, AuditSource } from '../../protocol/audit/schema.js';
import { AUDIT_COMMAND_MAX_BYTES, AUDIT_FIELD_MAX, AUDIT_LIST_MAX } from '../../protocol/audit/schema.js';
import type { SandboxLimits } from '../../protocol/limits.js';
import { REFUSAL_REPORT_MAX, type RefusalReport } from '../../protocol/audit/refusals.js';
import { AuditEmitter, type AuditListener } from './emitter.js';
import { blake3Hex, toHex } from './hash.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A new random session id: `sb-` and 16 hex digits. */
export function newSessionId(): string {
  return `sb-${toHex(crypto.getRandomValues(new Uint8Array(8)))}`;
}

/** `text` cut to at most `max` UTF-8 bytes, at a character boundary. */
function cutUtf8(text: string, max: number): { text: string; bytes: number; cut: boolean } {
  const bytes = encoder.encode(text);
  if (bytes.length <= max) return { text, bytes: bytes.length, cut: false };
  let end = max;
  while (end > 0 && ((bytes[end] as number) & 0xc0) === 0x80) end--;
  return { text: decoder.decode(bytes.subarray(0, end)), bytes: bytes.length, cut: true };
}

function bounded(text: string): string {
  return text.length > AUDIT_FIELD_MAX ? text.slice(0, AUDIT_FIELD_MAX) : text;
}

/** A URL as an event may carry it: no user name or password, bounded. */
export function auditUrl(url: URL): string {
  if (url.username === '' && url.password === '') return bounded(url.href);
  const copy = new URL(url.href);
  copy.username = '';
  copy.password = '';
  return bounded(copy.href);
}

export class SessionAudit {
  private readonly emitter: AuditEmitter | undefined;

  constructor(listener: AuditListener | undefined, readonly sessionId: string) {
    this.emitter = listener === undefined ? undefined : new AuditEmitter({ sessionId, listener });
  }

  get enabled(): boolean {
    return this.emitter !== undefined;
  }

  emit(draft: AuditDraft, options?: { source?: AuditSource; count?: number }): void {
    this.emitter?.emit(draft, options);
  }

  flush(): void {
    this.emitter?.flush();
  }

  created(options: { allowedTools: string[] | undefined; networkHosts: string[] | undefined; forkedFrom: string | null; fromState: boolean; limits: SandboxLimits }): void {
    if (this.emitter === undefined) return;
    const limits: Record<string, number> = {};
    for (const [name, value] of Object.entries(options.limits)) if (Number.isFinite(value)) limits[name] = value;
    this.emit({
      type: 'sandbox.created',
      allowedTools: options.allowedTools === undefined ? null : options.allowedTools.slice(0, AUDIT_LIST_MAX).map(bounded),
      networkHosts: (options.networkHosts ?? []).slice(0, AUDIT_LIST_MAX).map(bounded),
      forkedFrom: options.forkedFrom,
      fromState: options.fromState,
      limits,
    });
  }

  runStarted(runId: number, command: string | string[]): void {
    if (this.emitter === undefined) return;
    const text = typeof command === 'string' ? command : JSON.stringify(command);
    const cut = cutUtf8(text, AUDIT_COMMAND_MAX_BYTES);
    this.emit({ type: 'run.started', runId, command: cut.text, commandBytes: cut.bytes, commandHash: blake3Hex(text), commandTruncated: cut.cut, argv: typeof command !== 'string' });
  }

  runEnded(runId: number, result: { exitCode: number; durationMs: number; errorClass: string | null; truncated: boolean }): void {
    if (this.emitter === undefined) return;
    // The run's refusals (and their counted repeats) come before its end.
    this.flush();
    this.emit({ type: 'run.ended', runId, exitCode: result.exitCode, durationMs: Math.round(result.durationMs * 1000) / 1000, errorClass: result.errorClass, outputTruncated: result.truncated });
  }

  /**
   * The kernel's tally of its refusals (tool allowlist, EROFS, ENOSPC). The sandbox is not
   * trusted: each entry is checked and bounded, and the events are marked sandbox-reported.
   */
  sandboxReported(runId: number | null, refusals: unknown): void {
    if (this.emitter === undefined) return;
    const list = Array.isArray(refusals) ? refusals.slice(0, REFUSAL_REPORT_MAX) : [];
    let malformed = Array.isArray(refusals) ? refusals.length - list.length : 1;
    for (const entry of list as Array<Partial<RefusalReport>>) {
      const count = entry?.count;
      if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 1) {
        malformed++;
        continue;
      }
      if (entry.kind === 'tool' && typeof entry.tool === 'string') {
        this.emit({ type: 'tool.refused', runId, tool: bounded(entry.tool) }, { source: 'sandbox-reported', count });
      } else if (entry.kind === 'write' && (entry.errno === 'EROFS' || entry.errno === 'ENOSPC') && typeof entry.path === 'string') {
        const limit = entry.limit === 'fsBytes' || entry.limit === 'fileCount' ? entry.limit : null;
        this.emit({ type: 'write.refused', runId, errno: entry.errno, path: bounded(entry.path), limit }, { source: 'sandbox-reported', count });
      } else {
        malformed++;
      }
    }
    if (malformed > 0) this.emit({ type: 'audit.dropped', lost: malformed, reason: 'malformed refusal report from the sandbox (ignored)', types: {} });
  }

  /** What the kernel's pkg says it did: recorded only if its shape is one pkg reports. */
  packageReported(report: unknown): void {
    if (this.emitter === undefined) return;
    // Checked field by field against src/protocol/audit/package-report.ts: the worker is not trusted.
    const r: Record<string, unknown> = typeof report === 'object' && report !== null ? (report as Record<string, unknown>) : {};
    const text = (value: unknown): value is string => typeof value === 'string';
    const options = { source: 'sandbox-reported' as const };
    if (r.action === 'installed' && text(r.name) && text(r.version) && text(r.host) && text(r.sha256) && typeof r.bytes === 'number' && Number.isSafeInteger(r.bytes) && r.bytes >= 0) {
      this.emit({ type: 'package.installed', name: bounded(r.name), version: bounded(r.version), host: bounded(r.host), bytes: r.bytes, sha256: bounded(r.sha256) }, options);
    } else if (r.action === 'removed' && text(r.name)) {
      this.emit({ type: 'package.removed', name: bounded(r.name) }, options);
    } else if (r.action === 'refused' && text(r.name) && text(r.reason)) {
      this.emit({ type: 'package.refused', name: bounded(r.name), reason: bounded(r.reason) }, options);
    } else {
      this.emit({ type: 'audit.dropped', lost: 1, reason: 'malformed package report from the sandbox (ignored)', types: {} });
    }
  }
}
