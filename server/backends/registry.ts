// The backends by name, wired to what they need: the qemu backend's scoped runs go through
// the gateway's egress proxy (server/egress-proxy), started per run with the spec's
// allowlist and this machine's secrets (a gate worker's own, never the job's); its CA is
// trusted only inside that guest.

import type { SecretBinding } from '../../src/host/network/secrets.js';
import { startEgressProxy } from '../egress-proxy/index.js';
import type { BackendName, SandboxClient } from './contract.js';
import { FirecrackerSandboxClient } from './firecracker/firecracker-client.js';
import { QemuSandboxClient, type EgressProxyFactory } from './qemu/qemu-client.js';
import { WasmSandboxClient } from './wasm/wasm-client.js';

/**
 * Starts a scoped run's proxy: the spec's allowlist decides, and `secrets` (bound to their
 * hosts, as the gateway's) are added to the requests it allows; the guest holds none of them.
 */
export function egressProxyWithSecrets(secrets: readonly SecretBinding[] = []): EgressProxyFactory {
  return async (spec, onDecision) => {
    const policy = { allowedHosts: [...spec.egressAllowlist], ...(secrets.length === 0 ? {} : { secrets: [...secrets] }) };
    const proxy = await startEgressProxy({ policy, host: '127.0.0.1', port: 0, ...(onDecision === undefined ? {} : { onDecision }) });
    const port = proxy.port;
    if (port === undefined) {
      await proxy.close();
      throw new Error('the egress proxy did not listen on a TCP port');
    }
    return { port, caPem: proxy.caCertificate, close: () => proxy.close() };
  };
}

export const egressProxyForSpec: EgressProxyFactory = egressProxyWithSecrets();

export interface ClientOptions {
  runsDir?: string;
  egressProxy?: EgressProxyFactory;
}

export function createSandboxClient(backend: BackendName, options: ClientOptions = {}): SandboxClient {
  switch (backend) {
    case 'wasm':
      return new WasmSandboxClient(options.runsDir);
    case 'qemu':
      return new QemuSandboxClient({ ...(options.runsDir === undefined ? {} : { runsDir: options.runsDir }), egressProxy: options.egressProxy ?? egressProxyForSpec });
    case 'firecracker':
      return new FirecrackerSandboxClient(options.runsDir === undefined ? {} : { runsDir: options.runsDir });
  }
}
