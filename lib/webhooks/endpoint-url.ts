import { normalizeHostname } from '#net/address-guard.js';
import { type OutboundSettings, outboundSettings } from '#net/outbound-settings.js';
import { checkedUrl, type LookupHost, resolveChecked, systemLookup } from '#net/outbound-target.js';
import { ValidationError } from '#platform/errors.js';
import { Failure } from '#platform/failure.js';

/** How long the host of an endpoint URL may take to resolve when it is registered. */
const RESOLVE_TIMEOUT_MS = 5_000;

/** The guarded client's refusals as the codes of a registered URL's 422. */
const CODES: Record<string, string> = { invalid_url: 'invalid_url', insecure_url: 'insecure_url', network_error: 'url_not_resolvable' };

/**
 * The address checks of decisions.md's "Outbound calls", made when an
 * endpoint's URL is registered or changed: the very checks the deliveries'
 * client (lib/net/guarded-fetch.ts) makes on every call (`https:` only, or
 * `http:` too under OUTBOUND_ALLOW_INSECURE=true; no credentials in the URL;
 * a host that is, or resolves only to, public addresses unless
 * OUTBOUND_ALLOWED_HOSTS allows it; cloud metadata names never), within
 * 5 s of DNS. A host the operator allows is not resolved now. A refusal is a
 * 422 `validation_failed` naming `/url`. Delivery checks again, so a host
 * that later resolves elsewhere is refused then.
 */
export async function checkEndpointUrl(text: string, settings: OutboundSettings = outboundSettings(), lookup: LookupHost = systemLookup): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const until = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error('timed out'), { code: 'ETIMEOUT' })), RESOLVE_TIMEOUT_MS);
  });
  try {
    const url = checkedUrl(text, settings);
    if (settings.allowedHostnames.has(normalizeHostname(url.hostname))) return;
    await resolveChecked(url, settings, until, lookup);
  } catch (error) {
    // A lookup past the 5 s is a `network_error` too (resolveChecked).
    if (!(error instanceof Failure)) throw error;
    throw new ValidationError([{ name: '/url', location: 'body', reason: error.message, code: CODES[error.code] ?? 'url_not_allowed' }]);
  } finally {
    clearTimeout(timer);
  }
}
