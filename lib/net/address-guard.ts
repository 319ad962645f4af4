import { isIPv4, isIPv6 } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which addresses an outbound call may reach (decisions.md, "Outbound calls"):
 * the classification of IP addresses (loopback, private, link-local and the
 * metadata address, IPv4 forms embedded in IPv6...), the cloud metadata
 * hostnames, and the CIDR matching of the operator's allow-list. No I/O:
 * resolving a host and connecting are lib/net/guarded-fetch.ts.
 *
 * The special-purpose ranges are ipaddr.js's (`range()`, kept with the IANA
 * registries), not a table of our own: only what it calls `unicast` is
 * public, so a range it learns is refused without a change here.
 */

type Address = ipaddr.IPv4 | ipaddr.IPv6;

export interface Cidr {
  network: Address;
  bits: number;
}

/** Hosts that are allowed although non-public (OUTBOUND_ALLOWED_HOSTS): a hostname allows whatever it resolves to, a CIDR its addresses. */
export interface AllowList {
  allowedHostnames: Set<string>;
  allowedCidrs: Cidr[];
}

/** Names of cloud metadata services, refused whatever they resolve to. */
const METADATA_HOSTNAMES = new Set(['metadata.google.internal', 'metadata', 'instance-data', 'instance-data.ec2.internal']);

/** Lower case, without IPv6 brackets or trailing dots: how a URL's host is compared and connected to. */
export const normalizeHostname = (host: string): string =>
  host
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.+$/, '');

/** A normalized hostname that names a cloud metadata service. */
export const isMetadataHostname = (host: string): boolean => METADATA_HOSTNAMES.has(host);

/** Comma-separated hostnames, IPs and CIDRs (the operator's text) as an allow-list; anything that is not an IP or CIDR is a hostname. */
export function parseAllowList(text: string): AllowList {
  const allowedHostnames = new Set<string>();
  const allowedCidrs: Cidr[] = [];
  for (const entry of text
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const cidr = parseCidr(entry);
    if (cidr) allowedCidrs.push(cidr);
    else allowedHostnames.add(normalizeHostname(entry));
  }
  return { allowedHostnames, allowedCidrs };
}

/**
 * The address, when `text` is one in its usual form. node:net decides what
 * is an address, as the connection does: ipaddr.js alone would also take
 * `127.1` or `0x7f.0.0.1`, which a URL or DNS never hands over.
 */
function parseAddress(text: string): Address | undefined {
  if (isIPv4(text)) return ipaddr.IPv4.parse(text);
  if (!isIPv6(text)) return undefined;
  // The zone (`%eth0`) says which link, not what the address is, and ipaddr.js takes only some zone names.
  const bare = text.replace(/%.*$/, '');
  return ipaddr.IPv6.isValid(bare) ? ipaddr.IPv6.parse(bare) : undefined;
}

/** `10.0.0.0/8`, `fd00::/8`, or a bare address (a /32 or /128); undefined for anything else. */
export function parseCidr(text: string): Cidr | undefined {
  const [address = '', prefix, extra] = text.split('/');
  if (extra !== undefined || address.includes('%')) return undefined;
  const network = parseAddress(address);
  if (!network) return undefined;
  const width = network.kind() === 'ipv4' ? 32 : 128;
  if (prefix === undefined) return { network, bits: width };
  const bits = Number(prefix);
  return /^\d+$/.test(prefix) && bits <= width ? { network, bits } : undefined;
}

const inCidr = (address: Address, { network, bits }: Cidr): boolean => address.kind() === network.kind() && address.match(network, bits);

/** What to call a range of ipaddr.js's in a refusal; one not named here is called by its own name. */
const RANGE_NAMES: Readonly<Record<string, string>> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade NAT',
  private: 'private',
  reserved: 'reserved',
  uniqueLocal: 'unique local',
  deprecatedSiteLocal: 'site-local',
  discard: 'discard-only',
  benchmarking: 'benchmarking',
  teredo: 'Teredo',
};

const refusal = (range: string): string => RANGE_NAMES[range] ?? `special-purpose (${range})`;

const NAT64_WELL_KNOWN = ipaddr.IPv6.parse('64:ff9b::');
/**
 * IPv4-compatible `::a.b.c.d` (deprecated, RFC 4291). ipaddr.js reads its
 * dotted form as mapped but calls the same address in hex (`::7f00:1`)
 * `unicast`: both are judged by the IPv4 address they end with.
 */
const V4_COMPATIBLE = ipaddr.IPv6.parse('::');

const lowIpv4 = (address: ipaddr.IPv6): ipaddr.IPv4 => {
  const [high = 0, low = 0] = address.parts.slice(6);
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
};

/**
 * The IPv4 address an IPv6 form carries where a translator or tunnel would
 * take the packet: mapped and SIIT (RFC 6145) and the well-known NAT64
 * prefix (64:ff9b::/96) in the low 32 bits, 6to4 in bits 16 to 48.
 */
function embeddedIpv4(address: ipaddr.IPv6, range: string): ipaddr.IPv4 | undefined {
  switch (range) {
    case 'ipv4Mapped':
    case 'rfc6145':
      return lowIpv4(address);
    case 'rfc6052':
      return address.match(NAT64_WELL_KNOWN, 96) ? lowIpv4(address) : undefined;
    case '6to4': {
      const [, high = 0, low = 0] = address.parts;
      return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
    }
    case 'unicast':
      return address.match(V4_COMPATIBLE, 96) ? lowIpv4(address) : undefined;
    default:
      return undefined;
  }
}

/**
 * Why an address may not be called, or undefined for a public one: every
 * range but ipaddr.js's `unicast` (loopback, private, link-local including
 * the 169.254.169.254 metadata address, unique local, unspecified,
 * carrier-grade NAT, multicast, reserved...). IPv6 forms that embed an IPv4
 * address (mapped, SIIT, NAT64 64:ff9b::/96, 6to4, IPv4-compatible) are
 * judged by that address. Teredo (2001::/32) is refused: what it reaches is
 * a tunnel's client behind a NAT, which no check here can see; and so is the
 * local-use NAT64 prefix 64:ff9b:1::/48, whose translator is the network's
 * own. Anything that is not an IP address is refused.
 */
export function blockedReason(text: string): string | undefined {
  const address = parseAddress(text);
  if (!address) return 'not an IP address';
  const range = address.range();
  if (address instanceof ipaddr.IPv6) {
    const inner = embeddedIpv4(address, range);
    if (inner) return blockedReason(inner.toString());
    if (range === 'rfc6052') return 'local-use NAT64';
  }
  return range === 'unicast' ? undefined : refusal(range);
}

/** Whether an address is in one of the allowed CIDRs (an IPv6 form that embeds an IPv4 address also by that address). */
export function addressAllowed(text: string, allowedCidrs: readonly Cidr[]): boolean {
  const address = parseAddress(text);
  if (!address) return false;
  const inner = address instanceof ipaddr.IPv6 ? embeddedIpv4(address, address.range()) : undefined;
  return allowedCidrs.some((cidr) => inCidr(address, cidr) || (inner !== undefined && inCidr(inner, cidr)));
}
