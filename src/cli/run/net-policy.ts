// The network policy of `airlock run`: a policy file (--net-policy, checked against the
// policy schema with file, line and reason), then --net entries and --net-mode on top.
// --net-log prints each decision to stderr.

import { POLICY_SCHEMA } from '../../host/network/policy-schema.js';
import type { NetworkPolicy } from '../../host/network/policy.js';
import { describeReport, type DecisionReport } from '../../host/network/decision-report.js';
import type { AuditEvent } from '../../protocol/audit/schema.js';
import { checkWith, compileSchema, fileLayer } from '../../../server/config/load.js';

export function runPolicy(options: { net: string[]; netMode?: 'strict' | 'open'; netPolicy?: string }): NetworkPolicy | undefined {
  let policy: NetworkPolicy = {};
  if (options.netPolicy !== undefined) {
    const layer = fileLayer(options.netPolicy);
    checkWith(compileSchema(POLICY_SCHEMA), layer);
    policy = layer.values as NetworkPolicy;
  }
  if (options.net.length > 0) policy = { ...policy, allowedHosts: [...(policy.allowedHosts ?? []), ...options.net] };
  if (options.netMode !== undefined) policy = { ...policy, mode: options.netMode };
  return Object.keys(policy).length === 0 ? undefined : policy;
}

/** A listener for --net-log: one line per decision on stderr. */
export function netLogger(write: (line: string) => void): (event: AuditEvent) => void {
  return (event) => {
    if (event.type !== 'network.decision') return;
    const { allowed, rule, exception, status, bytes, durationMs } = event;
    const report: DecisionReport = { allowed, rule: rule ?? '(unknown)', ...(event.reason === null ? {} : { reason: event.reason }), ...(exception === undefined ? {} : { exception }), ...(status === undefined ? {} : { status }), ...(bytes === undefined ? {} : { bytes }), ...(durationMs === undefined ? {} : { durationMs }) };
    write(`airlock: net: ${describeReport(event.method, event.url, report)}\n`);
  };
}
