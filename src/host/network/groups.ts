// The built-in egress groups: named sets of hosts a policy can allow by name (`--net github`).
// Each entry means the apex and all its subdomains. Changing what a group allows is an edit
// here and nowhere else; users add their own groups in their policy (`groups:`).

export const BUILTIN_GROUPS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  github: ['github.com', 'githubusercontent.com'],
  provider: ['anthropic.com', 'openai.com', 'openrouter.ai'],
  'package-registry': ['npmjs.org', 'yarnpkg.com', 'pypi.org', 'pythonhosted.org', 'crates.io', 'golang.org', 'rubygems.org', 'alpinelinux.org', 'debian.org'],
  // Search providers: only for a session or phase that opts into web search.
  'web-search': ['tavily.com', 'exa.ai', 'search.brave.com', 'api.search.brave.com'],
});

/** A group's entries as host patterns: the apex and `*.` its subdomains. */
export function groupPatterns(hosts: readonly string[]): string[] {
  return hosts.flatMap((host) => (host.startsWith('*.') || host.includes(':') ? [host] : [host, `*.${host}`]));
}
