// The SSRF floor's view of a host: whether an IP address is on the public internet, and
// which names never are. Addresses are classified by ipaddr.js (only what it calls
// `unicast` is public) plus the IPv6 forms it does not know; an IPv6 address that embeds an
// IPv4 address (mapped, translated, NAT64) is judged by the IPv4 address inside, so that
// `[::ffff:127.0.0.1]` — which the URL parser turns into `[::ffff:7f00:1]` — is loopback.

import ipaddr from 'ipaddr.js';

/** A range a configuration may open for one exact `host:port` (local services, tests). */
const OPENABLE = new Set(['loopback', 'private', 'uniqueLocal', 'carrierGradeNat']);

/** Cloud metadata services that sit in otherwise openable ranges; never reachable. */
const METADATA_ADDRESSES = new Set(['fd00:ec2::254', '100.100.100.200', '192.0.0.192']);

/** Names of cloud metadata services (their addresses are refused too, whatever they are called). */
const METADATA_NAMES = new Set(['metadata', 'metadata.google.internal', 'metadata.goog', 'instance-data', 'instance-data.ec2.internal', 'metadata.tencentyun.com', 'metadata.platformequinix.com']);
/** Suffixes that never name a public host: special-use (RFC 6762, 8375), ICANN's private-use .internal, and the undelegated .lan, .intranet, .corp. */
const PRIVATE_SUFFIXES = ['.internal', '.local', '.home.arpa', '.intranet', '.lan', '.corp'];

export type AddressClass =
  | { public: true; address: string }
  /** `range` names why (ipaddr.js's name, or ours); `openable`: an exact host:port exception may open it. */
  | { public: false; address: string; range: string; openable: boolean };

function ipv4Embedded(address: ipaddr.IPv6, range: string): ipaddr.IPv4 | undefined {
  const bytes = address.toByteArray();
  const last = ipaddr.fromByteArray(bytes.slice(12)) as ipaddr.IPv4;
  if (range === 'ipv4Mapped' || range === 'rfc6145') return last;
  // NAT64 (RFC 6052): the well-known prefix 64:ff9b::/96 puts the IPv4 address last.
  if (range === 'rfc6052' && address.parts[2] === 0) return last;
  return undefined;
}

/**
 * The address `text` stands for, or undefined for anything else (a host name). ipaddr.js's
 * own isValid answers a name by throwing and catching an exception (tens of µs each, on
 * every decision): names are told apart first by its IPv4 patterns (isIPv4), which throw
 * only for out-of-range numbers.
 */
function parseAddress(text: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  if (text.includes(':')) return ipaddr.IPv6.isValid(text) ? ipaddr.IPv6.parse(text) : undefined;
  let formatted: boolean;
  try {
    formatted = ipaddr.IPv4.isIPv4(text);
  } catch {
    return undefined;
  }
  return formatted && ipaddr.IPv4.isValid(text) ? ipaddr.IPv4.parse(text) : undefined;
}

/** Classifications of resolved addresses (a few per host, asked again for every request); bounded. */
const classified = new Map<string, AddressClass>();
const CLASSIFIED_MAX = 4096;

/** Classifies an IP address given as text (no brackets). Throws TypeError if it is not one. */
export function classifyAddress(text: string): AddressClass {
  const known = classified.get(text);
  if (known !== undefined) return known;
  const found = Object.freeze(classifyParsed(text));
  if (classified.size >= CLASSIFIED_MAX) classified.clear();
  classified.set(text, found);
  return found;
}

function classifyParsed(text: string): AddressClass {
  const parsed = parseAddress(text);
  if (parsed === undefined) throw new TypeError(`${text} is not an IP address`);
  let address: ipaddr.IPv4 | ipaddr.IPv6 = parsed;
  let range: string = parsed.range();
  let via = '';
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    // IPv4-compatible (::a.b.c.d, deprecated by RFC 4291): ipaddr.js calls it unicast.
    if (range === 'unicast' && v6.parts.slice(0, 6).every((part) => part === 0)) range = 'ipv4Compatible';
    const inner = ipv4Embedded(v6, range);
    if (inner !== undefined) {
      via = ` (${range} ${v6.toString()})`;
      address = inner;
      range = inner.range();
    }
  }
  const canonical = address.toString();
  if (METADATA_ADDRESSES.has(canonical) || METADATA_ADDRESSES.has(text.toLowerCase())) return { public: false, address: canonical, range: `metadata${via}`, openable: false };
  if (range === 'unicast') return { public: true, address: canonical };
  return { public: false, address: canonical, range: `${range}${via}`, openable: via === '' && OPENABLE.has(range) };
}

/** Whether `host` (a URL's hostname, brackets stripped) is an IP address literal. */
export function isAddressLiteral(host: string): boolean {
  return parseAddress(host) !== undefined;
}

/**
 * The floor's class of a host name, decided before any lookup: `localhost` and its
 * subdomains are loopback (an exact host:port exception may open one), metadata names are
 * never reachable, private-use suffixes (.internal, .local, .home.arpa) are private.
 */
export function classifyName(name: string): { range: string; openable: boolean } | undefined {
  if (name === 'localhost' || name.endsWith('.localhost')) return { range: 'loopback', openable: true };
  if (METADATA_NAMES.has(name)) return { range: 'metadata', openable: false };
  if (name.endsWith('.in-addr.arpa') || name.endsWith('.ip6.arpa')) return { range: 'reverse-DNS', openable: false };
  const suffix = PRIVATE_SUFFIXES.find((s) => name.endsWith(s));
  return suffix === undefined ? undefined : { range: `private (${suffix})`, openable: true };
}

/**
 * The host of a URL as the policy compares it: lower case, brackets and trailing dots gone,
 * an IPv4-mapped IPv6 literal as its IPv4 address (so `blockedHosts: ['127.0.0.1']` also
 * names `[::ffff:7f00:1]`), other IP literals in their canonical form.
 */
export function canonicalHost(hostname: string): string {
  let host = hostname.toLowerCase();
  if (host.startsWith('[') || host.endsWith(']')) host = host.replace(/^\[|\]$/g, '');
  if (host.endsWith('.')) host = host.replace(/\.+$/, '');
  const parsed = parseAddress(host);
  if (parsed === undefined) return host;
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) return (parsed as ipaddr.IPv6).toIPv4Address().toString();
  return parsed.toString();
}
