// How a Sandbox answers its worker's network requests: the policy they are decided by, the
// decision audited, the answer sent back in message-sized pieces. Host side: the worker
// only ever sees the head and body this sends.

import type { PackagePolicy } from '../../protocol/limits.js';
import type { NetRequest } from '../../protocol/network.js';
import type { KernelConnection, Platform } from '../connection.js';
import { auditUrl, type SessionAudit } from '../audit/session-audit.js';
import { reportFields, type DecisionReport } from './decision-report.js';
import { performRequest } from './perform.js';
import type { NetworkPolicy } from './policy.js';
import type { SandboxOptions } from '../types.js';

/**
 * The network policy requests are decided by: the sandbox's, plus the package hosts while
 * packages are enabled (pkg's downloads take the same path as every request).
 */
export function sandboxNetworkPolicy(network: NetworkPolicy | undefined, packages: PackagePolicy): NetworkPolicy | undefined {
  if (!packages.enabled || packages.allowedHosts.length === 0) return network;
  return { ...(network ?? {}), allowedHosts: [...(network?.allowedHosts ?? []), ...packages.allowedHosts] };
}

/** What answering a request needs of its sandbox, read when the request arrives. */
export interface RequestContext {
  readonly options: SandboxOptions;
  readonly policy: NetworkPolicy | undefined;
  readonly audit: SessionAudit;
  readonly runId: number | null;
  readonly responseBytes: number;
  readonly network: Platform['network'];
  /** The most bytes one message may carry. */
  readonly budget: number;
}

/** Decides and performs a sandbox's network request, then answers it in pieces. */
export async function answerNetRequest(connection: KernelConnection, id: number, request: NetRequest, context: RequestContext): Promise<void> {
  context.options.onNetRequest?.({ method: request.method, url: request.url });
  const { audit, runId } = context;
  const onDecision = !audit.enabled
    ? undefined
    : (method: string, url: URL, report: DecisionReport): void => audit.emit({ type: 'network.decision', runId, enforcer: 'host', method, url: auditUrl(url), host: url.hostname, ...reportFields(report) });
  const { head, body } = await performRequest(request, context.policy, context.responseBytes, context.network, onDecision);
  try {
    await connection.api.netHead(id, head);
    for (let offset = 0; offset < body.length; offset += context.budget) {
      await connection.api.netBody(id, body.subarray(offset, offset + context.budget), offset + context.budget >= body.length);
    }
    if (body.length === 0) await connection.api.netBody(id, new Uint8Array(0), true);
  } catch {
    // The worker went away meanwhile; nobody is waiting for this answer any more.
  }
}
