// The egress proxy for processes and microVMs (gate backends, agent tools): see proxy.ts.
export { DEFAULT_PROXY_LIMITS, startEgressProxy, type EgressProxy, type EgressProxyOptions, type ProxyDecision, type ProxyLimits } from './proxy.js';
export { createEphemeralCa, type EphemeralCa } from './ca.js';
