// A refusal reason in the playground's words. The host's policy engine names its refusals
// neutrally or by the policy's option names (network.allowedHosts, what an embedder wrote);
// a person in the playground set none of those: they see where to change it instead.

const OFF = 'network access is off';

const OPTION_WORDS: readonly [RegExp, string][] = [
  [/network\.allowedHosts/g, 'the allowed hosts (Settings → Network)'],
  [/network\.blockedHosts/g, 'the blocked hosts'],
  [/network\.ports/g, 'the allowed ports'],
];

/**
 * `reason` as the network panel shows it. `rule` is the policy rule that decided
 * ('default': nothing is allowed); events without one (recorded before decisions carried
 * it) are recognised by the host's wording.
 */
export function playgroundReason(reason: string, rule?: string): string {
  if (rule === 'default' || reason.startsWith(OFF)) return 'network access is off for this sandbox; allow hosts in Settings → Network';
  return OPTION_WORDS.reduce((text, [pattern, words]) => text.replace(pattern, words), reason);
}
