// The egress policy engine: one pure decision, used by every enforcement point — the Node
// host (library, CLI), the server's hop endpoint and the egress proxy (ARCHITECTURE.md §7).
//
// In order: the scheme; the blocklist; the allowlist (host patterns and group names) or, in
// `open` mode, any host; ports; methods; method+path rules; the GitHub token profile; then
// the SSRF floor (address.ts) — loopback, private, link-local, metadata and embedded forms,
// written literally or resolved from a name — and last the `onRequest` callback. A name the
// policy refuses is never looked up (a lookup is itself a message out, through DNS); only an
// exact `host:port` entry opens one loopback or private service.

import { canonicalHost, classifyAddress, classifyName, isAddressLiteral } from './address.js';
import { githubProfileVerdict, type GithubProfile } from './github-profiles.js';
import { BUILTIN_GROUPS, groupPatterns } from './groups.js';
import { HostSet, type HostEntry } from './host-set.js';
import type { SecretBinding } from './secrets.js';

export type { GithubProfile } from './github-profiles.js';
export type EgressMode = 'strict' | 'open';

/** A method+path rule: the first rule whose hosts, methods and paths match decides. */
export interface PathRule {
  /** Host patterns or group names the rule applies to. */
  hosts: string[];
  /** Methods it applies to (default: all). */
  methods?: string[];
  /** Path patterns (default: all): `/repos/*` (`*` within a segment), `/api/**` (any depth), or a plain prefix. */
  paths?: string[];
  action: 'allow' | 'deny';
}

export interface NetworkPolicy {
  /** `strict` (default): only what allowedHosts lists. `open`: any public host, still above the floor. */
  mode?: EgressMode;
  /** Hosts the sandbox may reach: `example.com`, `*.example.com` (subdomains), `host:8080`, `*`, or a group name (`github`). */
  allowedHosts?: string[];
  /** Hosts (or groups) it may never reach, whatever else allows them. */
  blockedHosts?: string[];
  /** Groups of this policy, beside the built-in ones (groups.ts): name → hosts (apex and subdomains). */
  groups?: Record<string, string[]>;
  /** Methods allowed (default: all). */
  methods?: string[];
  /** Ports allowed for entries that name none, and in open mode (default 80 and 443). */
  ports?: number[];
  /** Method+path rules. */
  rules?: PathRule[];
  /** What the session may change on GitHub (github-profiles.ts); default: no restriction. */
  githubProfile?: GithubProfile;
  /** Hosts the egress proxy tunnels without terminating TLS (SNI checked; no path rules, no secrets). */
  tunnel?: string[];
  /** Credentials the enforcement point adds for bound hosts (secrets.ts); the sandbox sees placeholders. */
  secrets?: SecretBinding[];
  /** This session or phase opted into web search: search-provider secrets are injected. */
  webSearch?: boolean;
  /** Called for every request (and every redirect hop) the rest allows; false refuses it. */
  onRequest?: (request: { method: string; url: string }) => boolean | Promise<boolean>;
  /**
   * A refusal as the sandbox's program reports it (default: the reason as decided, which names
   * this policy's options). A host with its own words for them — the playground's settings —
   * rewords it; the decision, its rule and its audit event keep the reason as decided.
   */
  describeRefusal?: (reason: string, rule: string) => string;
}

/** What a host name resolves to (every address); rejects when it cannot be resolved. */
export type Resolver = (host: string) => Promise<string[]>;

export type Decision =
  | {
      allowed: true;
      /** Where to connect: the checked addresses (empty: the platform connects by name and the far side decides again). */
      addresses: string[];
      /** What allowed it: `allowedHosts:api.example.com`, `group:github`, `mode:open`. */
      rule: string;
      /** The exact entry that opened a loopback or private service (to be logged). */
      exception?: string;
      /** The host is marked `tunnel` (the egress proxy does not terminate its TLS). */
      tunnel?: boolean;
    }
  | { allowed: false; reason: string; rule: string; failure?: 'resolve' };

/** A body the caller cannot show yet (a CONNECT tunnel: requests inside are decided one by one). */
export const BODY_UNKNOWN = 'unknown';

interface CompiledRule {
  methods: Set<string> | undefined;
  paths: RegExp[] | undefined;
  action: 'allow' | 'deny';
  text: string;
}

interface CompiledPolicy {
  mode: EgressMode;
  allowed: HostSet;
  blocked: HostSet;
  tunnel: HostSet;
  ports: Set<string>;
  methods: Set<string> | undefined;
  rules: CompiledRule[];
  /** Every rule's hosts in one set (entry source = the rule's index): candidates by host, not a scan. */
  ruleHosts: HostSet;
}

const compiledPolicies = new WeakMap<NetworkPolicy, CompiledPolicy>();

/** The host patterns a list of entries stands for, with group names expanded. */
function addEntries(set: HostSet, entries: readonly string[], key: string, groups: Readonly<Record<string, readonly string[]>>): void {
  for (const entry of entries) {
    const group = groups[entry.trim()];
    if (group !== undefined) for (const pattern of groupPatterns(group)) set.add(pattern, `group:${entry.trim()}`);
    else set.add(entry, `${key}:${entry}`);
  }
}

function pathPattern(text: string): RegExp {
  const escaped = text.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*\*/g, '\u0000').replace(/\*/g, '[^/]*').replace(/\u0000/g, '.*');
  return new RegExp(`^${escaped}${text.includes('*') ? '$' : ''}`);
}

/** Compiles a policy once (cached per policy object): lookups cost the host's labels, not the policy's size. */
export function compilePolicy(policy: NetworkPolicy | undefined): CompiledPolicy {
  const cached = policy === undefined ? undefined : compiledPolicies.get(policy);
  if (cached !== undefined) return cached;
  const groups = { ...BUILTIN_GROUPS, ...(policy?.groups ?? {}) };
  const allowed = new HostSet();
  const blocked = new HostSet();
  const tunnel = new HostSet();
  addEntries(allowed, policy?.allowedHosts ?? [], 'allowedHosts', groups);
  addEntries(blocked, policy?.blockedHosts ?? [], 'blockedHosts', groups);
  addEntries(tunnel, policy?.tunnel ?? [], 'tunnel', groups);
  const ruleHosts = new HostSet();
  const rules = (policy?.rules ?? []).map((rule, index): CompiledRule => {
    for (const text of rule.hosts) {
      const group = groups[text.trim()];
      for (const pattern of group === undefined ? [text] : groupPatterns(group)) ruleHosts.add(pattern, String(index));
    }
    return {
      methods: rule.methods === undefined ? undefined : new Set(rule.methods.map((m) => m.toUpperCase())),
      paths: rule.paths?.map(pathPattern),
      action: rule.action,
      text: `rules[${index}]`,
    };
  });
  const compiled: CompiledPolicy = {
    mode: policy?.mode ?? 'strict',
    allowed,
    blocked,
    tunnel,
    ports: new Set((policy?.ports ?? [80, 443]).map(String)),
    methods: policy?.methods === undefined ? undefined : new Set(policy.methods.map((m) => m.toUpperCase())),
    rules,
    ruleHosts,
  };
  if (policy !== undefined) compiledPolicies.set(policy, compiled);
  return compiled;
}

/** An entry that may open a loopback or private service: from allowedHosts, no wildcard, an explicit port. */
function isException(entry: HostEntry | undefined): boolean {
  return entry !== undefined && entry.source.startsWith('allowedHosts:') && !entry.wildcard && entry.port !== undefined && /^\d+$/.test(entry.port);
}

export function defaultPort(url: URL): string {
  return url.port || (url.protocol === 'https:' ? '443' : '80');
}

const OPEN_WITH = 'only an exact host:port entry in network.allowedHosts opens a loopback or private service';

function refuse(rule: string, reason: string): Decision {
  return { allowed: false, rule, reason };
}

/**
 * Decides about one URL (one hop). Without a resolver (a browser host, which cannot look
 * names up) only the name is decided; the server decides again. `body` is the request body
 * where a rule needs it (GraphQL under a GitHub profile); BODY_UNKNOWN skips those rules for
 * a caller that decides the requests inside again (the proxy's CONNECT).
 *
 * Never rejects: whatever goes wrong while deciding (input no rule foresaw, a callback that
 * throws) refuses the request with the reason, since every enforcement point calls this
 * where an exception would end a request handler or, unhandled, the process.
 */
export async function decide(policy: NetworkPolicy | undefined, method: string, url: URL, resolve?: Resolver, body?: Uint8Array | typeof BODY_UNKNOWN): Promise<Decision> {
  try {
    return await decideOne(policy, method, url, resolve, body);
  } catch (error) {
    return refuse('error', `the request to ${url.host} could not be decided: ${error instanceof Error ? error.message : String(error)}`);
  }
}

async function decideOne(policy: NetworkPolicy | undefined, method: string, url: URL, resolve: Resolver | undefined, body: Uint8Array | typeof BODY_UNKNOWN | undefined): Promise<Decision> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return refuse('scheme', `only http and https are allowed, not ${url.protocol}`);
  const compiled = compilePolicy(policy);
  const host = canonicalHost(url.hostname);
  const port = defaultPort(url);
  const shown = `${host}${url.port ? `:${url.port}` : ''}`;
  if (compiled.mode === 'strict' && compiled.allowed.size === 0) return refuse('default', 'network access is off: no host is allowed');
  const blocked = compiled.blocked.find(host, port);
  if (blocked !== undefined) return refuse(blocked.source, `${host} is blocked by network.blockedHosts (${blocked.source.startsWith('group:') ? blocked.source : blocked.text})`);

  const entries = compiled.allowed.findAll(host, port, compiled.ports);
  const entry = entries.find(isException) ?? entries[0];
  let rule: string;
  if (entry !== undefined) rule = entry.source;
  else if (compiled.mode === 'open' && compiled.ports.has(port)) rule = 'mode:open';
  else {
    const ports = `entries without a port allow network.ports: ${[...compiled.ports].join(', ')}; name another as host:port`;
    if (compiled.allowed.matchesOf(host).length > 0) return refuse('ports', `${shown} is not in network.allowedHosts: port ${port} is not allowed (${ports})`);
    if (compiled.mode === 'open') return refuse('ports', `port ${port} of ${host} is not allowed in open mode (${ports})`);
    return refuse('allowedHosts', `${shown} is not in network.allowedHosts`);
  }

  const upper = method.toUpperCase();
  // A tunnel's own decision (BODY_UNKNOWN) is about the host; the requests inside are decided one by one.
  const perRequest = body !== BODY_UNKNOWN;
  if (perRequest && compiled.methods !== undefined && !compiled.methods.has(upper)) return refuse('methods', `method ${upper} is not allowed (network.methods: ${[...compiled.methods].join(', ')})`);
  const path = url.pathname;
  const candidates = perRequest && compiled.rules.length > 0 ? [...new Set(compiled.ruleHosts.findAll(host, port).map((e) => Number(e.source)))].sort((a, b) => a - b) : [];
  for (const index of candidates) {
    const candidate = compiled.rules[index] as CompiledRule;
    if (candidate.methods !== undefined && !candidate.methods.has(upper)) continue;
    if (candidate.paths !== undefined && !candidate.paths.some((p) => p.test(path))) continue;
    if (candidate.action === 'deny') return refuse(candidate.text, `${upper} ${host}${path} is refused by network.${candidate.text}`);
    break;
  }
  if (policy?.githubProfile !== undefined && perRequest) {
    const verdict = githubProfileVerdict(policy.githubProfile, upper, url, host, body);
    if (verdict !== undefined && !verdict.allowed) return refuse(`githubProfile:${policy.githubProfile}`, verdict.reason);
  }

  const exception = isException(entry) ? entry?.text : undefined;
  let opened = false;
  const floor = (subject: string, found: { range: string; openable: boolean }, noun: string): Decision | undefined => {
    if (found.openable && exception !== undefined) {
      opened = true;
      return undefined;
    }
    return refuse(`floor:${found.range.split(' ')[0]}`, `${subject} a ${found.range} ${noun}; ${found.openable ? OPEN_WITH : 'it is never reachable'}`);
  };
  let addresses: string[] = [];
  if (isAddressLiteral(host)) {
    const found = classifyAddress(host);
    const refused = found.public ? undefined : floor(`${url.hostname} is`, found, 'address');
    if (refused !== undefined) return refused;
    addresses = [found.address];
  } else {
    const named = classifyName(host);
    const refused = named === undefined ? undefined : floor(`${host} is`, named, 'name');
    if (refused !== undefined) return refused;
    if (resolve !== undefined) {
      try {
        addresses = await resolve(host);
      } catch (error) {
        return { allowed: false, rule: 'resolve', failure: 'resolve', reason: `could not resolve ${host}: ${error instanceof Error ? error.message : String(error)}` };
      }
      if (addresses.length === 0) return { allowed: false, rule: 'resolve', failure: 'resolve', reason: `could not resolve ${host}: no address` };
      for (const address of addresses) {
        const found = classifyAddress(address);
        const refusedAddress = found.public ? undefined : floor(`${host} resolves to ${address},`, found, 'address');
        if (refusedAddress !== undefined) return refusedAddress;
      }
    }
  }
  if (perRequest && policy?.onRequest !== undefined && !(await policy.onRequest({ method: upper, url: url.href }))) {
    return refuse('onRequest', `the request to ${host} was refused by network.onRequest`);
  }
  const tunnel = compiled.tunnel.find(host, port) !== undefined;
  return { allowed: true, addresses, rule, ...(opened ? { exception } : {}), ...(tunnel ? { tunnel } : {}) };
}
