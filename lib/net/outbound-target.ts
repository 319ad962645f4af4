import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { Failure } from '#platform/failure.js';
import { addressAllowed, blockedReason, isMetadataHostname, normalizeHostname } from './address-guard.js';
import type { OutboundSettings } from './outbound-settings.js';

/**
 * Where an outbound call may go: the URL's form and the addresses its host
 * resolves to, checked as decisions.md's "Outbound calls" says. The guarded
 * client (guarded-fetch.ts) checks every call and redirect with these; a URL
 * registered for later calls (a webhook endpoint) is checked with them too,
 * without loading the client itself.
 */

/** Origin and path only: a query string may carry secrets. */
export const describeUrl = (target: URL): string => `${target.origin}${target.pathname}`;

/** The URL, if its scheme and form may be called (`invalid_url`, `insecure_url` otherwise); its addresses are resolveChecked's. */
export function checkedUrl(text: string, settings: OutboundSettings): URL {
  let target: URL;
  try {
    target = new URL(text);
  } catch {
    throw new Failure('invalid_url', 'The url is not a valid absolute URL.', false);
  }
  if (target.protocol !== 'https:' && target.protocol !== 'http:') {
    throw new Failure('invalid_url', `The url's scheme ${target.protocol} is not allowed; use https:.`, false);
  }
  if (target.protocol === 'http:' && !settings.allowInsecure) {
    throw new Failure('insecure_url', `${describeUrl(target)}: plain http: is not allowed; use https:.`, false);
  }
  if (target.username || target.password) {
    throw new Failure('invalid_url', `${describeUrl(target)}: credentials in the URL are not supported; send an Authorization header.`, false);
  }
  return target;
}

export interface Resolved {
  address: string;
  family: 4 | 6;
}

/** A host's addresses, as DNS answers them. */
export type LookupHost = (host: string) => Promise<Resolved[]>;

/** DNS as the system resolves it: every address, in its order. */
export const systemLookup: LookupHost = async (host) =>
  (await dnsLookup(host, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family as 4 | 6 }));

/**
 * Resolves a URL's host once and checks every address; the result is what
 * the connection may use. Also the check of a URL registered for later calls
 * (lib/webhooks/endpoint-url.ts), with its own `lookup`.
 */
export async function resolveChecked(target: URL, settings: OutboundSettings, until: Promise<never>, lookup: LookupHost = systemLookup): Promise<Resolved[]> {
  const host = normalizeHostname(target.hostname);
  const hostAllowed = settings.allowedHostnames.has(host);
  const where = describeUrl(target);
  if (isMetadataHostname(host) && !hostAllowed) {
    throw new Failure('ssrf_blocked', `${where}: ${host} is a cloud metadata host and may not be called.`, false);
  }
  let addresses: Resolved[];
  const literal = isIP(host);
  if (literal) {
    addresses = [{ address: host, family: literal as 4 | 6 }];
  } else {
    try {
      addresses = await Promise.race([lookup(host), until]);
    } catch (error) {
      if (error instanceof Failure) throw error;
      throw new Failure('network_error', `${where}: ${host} could not be resolved (${(error as NodeJS.ErrnoException).code ?? 'DNS error'}).`);
    }
    if (addresses.length === 0) throw new Failure('network_error', `${where}: ${host} has no address.`);
  }
  if (!hostAllowed) {
    for (const { address } of addresses) {
      const reason = blockedReason(address);
      if (reason && !addressAllowed(address, settings.allowedCidrs)) {
        throw new Failure('ssrf_blocked', `${where}: ${host} resolves to ${address}, a ${reason} address, which may not be called.`, false);
      }
    }
  }
  return addresses;
}
