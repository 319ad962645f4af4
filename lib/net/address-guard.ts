import { isIPv4, isIPv6 } from 'node:net';

/**
 * Which addresses an outbound call may reach (decisions.md, "Outbound calls"):
 * the classification of IP addresses (loopback, private, link-local and the
 * metadata address, IPv4 forms embedded in IPv6...), the cloud metadata
 * hostnames, and the CIDR matching of the operator's allow-list. No I/O:
 * resolving a host and connecting are lib/net/guarded-fetch.ts.
 */

export interface Cidr {
  family: 4 | 6;
  base: bigint;
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

function ipv4Value(address: string): bigint | undefined {
  if (!isIPv4(address)) return undefined;
  return address.split('.').reduce((n, part) => (n << 8n) | BigInt(Number(part)), 0n);
}

function ipv6Value(address: string): bigint | undefined {
  const bare = address.replace(/%.*$/, ''); // zone id
  if (!isIPv6(bare)) return undefined;
  let text = bare;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = ipv4Value(dotted[1]!)!;
    text = `${text.slice(0, dotted.index)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const groups = (s: string) => (s === '' ? [] : s.split(':'));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const all = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return all.reduce((n, group) => (n << 16n) | BigInt(parseInt(group, 16)), 0n);
}

/** `10.0.0.0/8`, `fd00::/8`, or a bare address (a /32 or /128); undefined for anything else. */
export function parseCidr(text: string): Cidr | undefined {
  const [address = '', prefix] = text.split('/');
  const v4 = ipv4Value(address);
  const v6 = v4 === undefined ? ipv6Value(address) : undefined;
  if (v4 === undefined && v6 === undefined) return undefined;
  const family = v4 !== undefined ? 4 : 6;
  const width = family === 4 ? 32 : 128;
  const bits = prefix === undefined ? width : Number(prefix);
  if (!Number.isInteger(bits) || bits < 0 || bits > width || (prefix !== undefined && !/^\d+$/.test(prefix))) return undefined;
  return { family, base: (v4 ?? v6)! & prefixMask(family, bits), bits };
}

/** The network mask of a `/bits` prefix. */
function prefixMask(family: 4 | 6, bits: number): bigint {
  const width = family === 4 ? 32 : 128;
  return ((1n << BigInt(width)) - 1n) ^ ((1n << BigInt(width - bits)) - 1n);
}

function inCidr(family: 4 | 6, value: bigint, cidr: Cidr): boolean {
  return family === cidr.family && (value & prefixMask(family, cidr.bits)) === cidr.base;
}

const cidrs = (table: Array<[string, string]>) => table.map(([cidr, reason]) => ({ cidr: parseCidr(cidr)!, reason }));

const V4_BLOCKED = cidrs([
  ['0.0.0.0/8', 'unspecified'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'shared (CGNAT)'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'reserved'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'reserved'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
]);

const V6_BLOCKED = cidrs([
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['100::/64', 'reserved'],
  ['64:ff9b:1::/48', 'private'],
  ['fc00::/7', 'private'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'private'],
  ['ff00::/8', 'multicast'],
]);

/** IPv6 ranges that carry an IPv4 address, and where: mapped, compatible, SIIT, NAT64 in the low 32 bits; 6to4 in bits 16..48. */
const V6_EMBEDDING = [
  { cidr: parseCidr('::ffff:0:0/96')!, shift: 0n },
  { cidr: parseCidr('::/96')!, shift: 0n },
  { cidr: parseCidr('::ffff:0:0:0/96')!, shift: 0n },
  { cidr: parseCidr('64:ff9b::/96')!, shift: 0n },
  { cidr: parseCidr('2002::/16')!, shift: 80n },
];

function embeddedIpv4(value: bigint): bigint | undefined {
  for (const { cidr, shift } of V6_EMBEDDING) {
    if (inCidr(6, value, cidr)) return (value >> shift) & 0xffffffffn;
  }
  return undefined;
}

/**
 * Why an address may not be called (loopback, private, link-local including
 * the 169.254.169.254 metadata address, unspecified, CGNAT, multicast,
 * reserved), or undefined for a public one. IPv6 forms that embed an IPv4
 * address (mapped `::ffff:a.b.c.d`, NAT64, 6to4...) are judged by that address.
 * Anything that is not an IP address is refused.
 */
export function blockedReason(address: string): string | undefined {
  const v4 = ipv4Value(address);
  if (v4 !== undefined) return V4_BLOCKED.find(({ cidr }) => inCidr(4, v4, cidr))?.reason;
  const v6 = ipv6Value(address);
  if (v6 === undefined) return 'not an IP address';
  const own = V6_BLOCKED.find(({ cidr }) => inCidr(6, v6, cidr))?.reason;
  if (own) return own;
  const inner = embeddedIpv4(v6);
  return inner === undefined ? undefined : V4_BLOCKED.find(({ cidr }) => inCidr(4, inner, cidr))?.reason;
}

/** Whether an address is in one of the allowed CIDRs (an IPv6 form that embeds an IPv4 address also by that address). */
export function addressAllowed(address: string, allowedCidrs: readonly Cidr[]): boolean {
  const v4 = ipv4Value(address);
  const v6 = v4 === undefined ? ipv6Value(address) : undefined;
  const inner = v6 !== undefined ? embeddedIpv4(v6) : undefined;
  return allowedCidrs.some(
    (cidr) => (v4 !== undefined && inCidr(4, v4, cidr)) || (v6 !== undefined && inCidr(6, v6, cidr)) || (inner !== undefined && inCidr(4, inner, cidr)),
  );
}
