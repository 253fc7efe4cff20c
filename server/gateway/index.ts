// The gateway service: the hop endpoint browser sandboxes reach the network through.

import type { ServerService } from '../service.js';
import { registerHop } from './hop.js';
import { auditUrl } from '../../src/host/audit/session-audit.js';
import { loadSecrets } from './secret-sources.js';
import { reportFields } from '../../src/host/network/decision-report.js';

export const gatewayService: ServerService = {
  name: 'gateway',
  register(app, context) {
    const { dnsServers, responseBytes, requestBytes, hopTimeoutMs, secrets, ...policy } = context.config.network;
    registerHop(app, context, {
      policy: { ...policy, secrets: loadSecrets(secrets ?? [], process.env) },
      dnsServers,
      responseBytes,
      requestBytes,
      hopTimeoutMs,
      audit: (method, url, report) => context.audit.record({ type: 'network.decision', runId: null, enforcer: 'gateway', method, url: auditUrl(url), host: url.hostname, ...reportFields(report) }),
    });
  },
};
