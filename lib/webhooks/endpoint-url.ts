import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { addressAllowed, blockedReason, isMetadataHostname, normalizeHostname } from '#net/address-guard.js';
import { type OutboundSettings, outboundSettings } from '#net/outbound-settings.js';
import { ValidationError } from '#platform/errors.js';

/** How long the host of an endpoint URL may take to resolve when it is registered. */
const RESOLVE_TIMEOUT_MS = 5_000;

export type ResolveHost = (host: string) => Promise<string[]>;

const systemResolve: ResolveHost = async (host) => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error('timed out'), { code: 'ETIMEOUT' })), RESOLVE_TIMEOUT_MS);
  });
  try {
    const found = await Promise.race([dnsLookup(host, { all: true, verbatim: true }), timeout]);
    return found.map((a) => a.address);
  } finally {
    clearTimeout(timer);
  }
};

const refused = (reason: string, code = 'url_not_allowed') => new ValidationError([{ name: '/url', location: 'body', reason, code }]);

/**
 * The address checks of decisions.md's "Outbound calls", made when an
 * endpoint's URL is registered or changed, as the deliveries' client
 * (lib/net/guarded-fetch.ts) makes them on every call: `https:` only (or
 * `http:` too under OUTBOUND_ALLOW_INSECURE=true), no credentials in the
 * URL, and a host that is, or resolves only to, public addresses unless
 * OUTBOUND_ALLOWED_HOSTS allows it; cloud metadata names never. A refusal
 * is a 422 `validation_failed` naming `/url`. Delivery checks again, so a
 * host that later resolves elsewhere is refused then.
 */
export async function checkEndpointUrl(text: string, settings: OutboundSettings = outboundSettings(), resolve: ResolveHost = systemResolve): Promise<void> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw refused('must be an absolute https: URL', 'invalid_url');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refused('must be an absolute https: URL', 'invalid_url');
  if (url.protocol === 'http:' && !settings.allowInsecure) throw refused('must use https: (plain http: is not allowed here)', 'insecure_url');
  if (url.username || url.password) throw refused('must not carry credentials', 'invalid_url');
  const host = normalizeHostname(url.hostname);
  if (settings.allowedHostnames.has(host)) return;
  if (isMetadataHostname(host)) throw refused(`${host} is a cloud metadata host and may not be called`);
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = await resolve(host);
    } catch (error) {
      throw refused(`${host} could not be resolved (${(error as NodeJS.ErrnoException).code ?? 'DNS error'})`, 'url_not_resolvable');
    }
    if (addresses.length === 0) throw refused(`${host} has no address`, 'url_not_resolvable');
  }
  for (const address of addresses) {
    const reason = blockedReason(address);
    if (reason && !addressAllowed(address, settings.allowedCidrs)) {
      throw refused(`${host} is or resolves to ${address}, a ${reason} address, which may not be called`);
    }
  }
}
