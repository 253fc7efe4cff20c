// The JSONL file sink: audit events appended to a hash chain on disk (chain-log.ts), with
// rotation and signed checkpoints. Pass `sink.listener` as a sandbox's onAuditEvent.
//
// The listener only queues the event: serializing and hashing happen a moment later
// (flushDelayMs, in a batch), while the sandbox's worker runs, not on the path of the run
// that caused the event. Appending never waits for the disk. If the disk falls behind by
// more than maxBacklogBytes
// (or a write fails), further events are counted by type instead of queued, and an
// `audit.dropped` event saying how many were lost is appended once the log can take it again
// — never silently.

import type { AuditEvent } from '../../protocol/audit/schema.js';
import { AUDIT_SCHEMA_VERSION } from '../../protocol/audit/schema.js';
import { ChainLog, type ChainLogOptions } from './chain-log.js';

export interface AuditFileSinkOptions extends ChainLogOptions {
  /** Queued bytes past which events are counted as lost instead of queued (default 64 MiB). */
  maxBacklogBytes?: number;
  /** Told of a failed write (the sink keeps counting what it could not write). */
  onError?: (error: Error) => void;
}

/** Events queued for the chain at most; past this they are counted as lost. */
const MAX_QUEUED_EVENTS = 100_000;

export class AuditFileSink {
  private queued: AuditEvent[] = [];
  private draining = false;
  private lost = new Map<string, number>();
  private lostReason = '';
  private errorReported = false;

  private constructor(
    readonly log: ChainLog,
    private readonly options: AuditFileSinkOptions,
  ) {}

  static async open(path: string, options: AuditFileSinkOptions = {}): Promise<AuditFileSink> {
    return new AuditFileSink(await ChainLog.open(path, options), options);
  }

  /** The sandbox listener: queues `event` for the log (bound, so it can be passed as is). */
  readonly listener = (event: AuditEvent): void => {
    if (this.queued.length >= MAX_QUEUED_EVENTS) {
      this.count(event, `more than ${MAX_QUEUED_EVENTS} events waited to be chained`);
      return;
    }
    this.queued.push(event);
    if (this.draining) return;
    this.draining = true;
    setTimeout(() => this.drain(), this.options.flushDelayMs ?? 25);
  };

  /** Chains the queued events (in order). */
  private drain(): void {
    this.draining = false;
    const queued = this.queued;
    this.queued = [];
    for (const event of queued) this.append(event);
  }

  /** Chains `event` now. */
  append(event: AuditEvent): void {
    const maxBacklog = this.options.maxBacklogBytes ?? 64 * 1024 * 1024;
    if (this.log.backlogBytes > maxBacklog) {
      this.count(event, `the audit log's disk fell behind by more than ${maxBacklog} bytes`);
      return;
    }
    try {
      if (this.lost.size > 0) this.appendLost();
      this.log.append(event);
    } catch (error) {
      this.count(event, (error as Error).message);
      if (!this.errorReported) {
        this.errorReported = true;
        this.options.onError?.(error as Error);
      }
    }
  }

  private count(event: AuditEvent, reason: string): void {
    this.lostReason = reason;
    this.lost.set(event.type, (this.lost.get(event.type) ?? 0) + (event.count ?? 1));
  }

  private appendLost(): void {
    const types = Object.fromEntries(this.lost);
    const lost = [...this.lost.values()].reduce((a, b) => a + b, 0);
    this.log.append({ v: AUDIT_SCHEMA_VERSION, type: 'audit.dropped', sessionId: null, seq: this.log.currentHead.next, time: new Date().toISOString(), source: 'host', lost, reason: this.lostReason, types });
    this.lost = new Map();
  }

  /** Writes everything queued. */
  async flush(): Promise<void> {
    this.drain();
    await this.log.flush();
    if (this.lost.size > 0 && this.log.backlogBytes === 0) {
      this.appendLost();
      await this.log.flush();
    }
  }

  /** Writes everything, signs a last checkpoint and releases the log. */
  async close(): Promise<void> {
    await this.flush().catch(() => undefined);
    await this.log.close();
  }
}
