// What an enforcement point tells the audit hook about one hop: the verdict, the rule that
// decided, the exact `host:port` entry that opened a loopback or private service, and for a
// request carried out its status, body bytes and time. One shape and one mapping to the
// `network.decision` event's fields, for the host, the server's gateway and the egress proxy.

import type { AuditFields } from '../../protocol/audit/schema.js';

export interface DecisionReport {
  allowed: boolean;
  /** Refused: why. Allowed: why the request failed or was cut short, if it was. */
  reason?: string;
  /** The rule that decided (policy.ts `Decision.rule`). */
  rule: string;
  /** The exact entry that opened a loopback or private service. */
  exception?: string;
  /** For an allowed request that got an answer: its HTTP status. */
  status?: number;
  /** For an allowed request: the response body bytes passed on. */
  bytes?: number;
  /** For an allowed request: from the decision to the end of the response (ms). */
  durationMs?: number;
}

type ReportFields = Pick<AuditFields<'network.decision'>, 'allowed' | 'reason' | 'rule' | 'exception' | 'status' | 'bytes' | 'durationMs'>;

/** The event fields a report stands for (the caller adds enforcer, method, url, host, runId). */
export function reportFields(report: DecisionReport): ReportFields {
  return {
    allowed: report.allowed,
    reason: report.reason ?? null,
    rule: report.rule,
    ...(report.exception === undefined ? {} : { exception: report.exception }),
    ...(report.status === undefined ? {} : { status: report.status }),
    ...(report.bytes === undefined ? {} : { bytes: report.bytes }),
    ...(report.durationMs === undefined ? {} : { durationMs: Math.round(report.durationMs) }),
  };
}

/** One line for a log (`--net-log`, the server log): what was decided, by which rule, and how it went. */
export function describeReport(method: string, url: string, report: DecisionReport): string {
  const rule = `rule ${report.rule}${report.exception === undefined ? '' : `, loopback/private exception ${report.exception}`}`;
  if (!report.allowed) return `refused ${method} ${url} (${rule}): ${report.reason ?? ''}`;
  const outcome = [report.status === undefined ? undefined : `status ${report.status}`, report.bytes === undefined ? undefined : `${report.bytes} bytes`, report.durationMs === undefined ? undefined : `${Math.round(report.durationMs)} ms`].filter((part) => part !== undefined);
  return `allowed ${method} ${url} (${rule})${outcome.length > 0 ? ` ${outcome.join(', ')}` : ''}${report.reason === undefined ? '' : `: ${report.reason}`}`;
}
