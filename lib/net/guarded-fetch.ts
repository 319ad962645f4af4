import http, { type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { pipeline, type Readable } from 'node:stream';
import zlib from 'node:zlib';
import { Failure } from '#platform/failure.js';
import { normalizeHostname } from './address-guard.js';
import { type OutboundSettings, outboundSettings } from './outbound-settings.js';
import { checkedUrl, describeUrl, type Resolved, resolveChecked } from './outbound-target.js';

/**
 * One outbound HTTP exchange to an address a user chose (decisions.md,
 * "Outbound calls"), behind the address guard:
 *
 * - Only `https:`, unless the operator sets `OUTBOUND_ALLOW_INSECURE=true`
 *   (lib/net/outbound-settings.ts); no credentials in the URL.
 * - Server-side request forgery: the host is resolved once, every address is
 *   checked (lib/net/address-guard.ts), and the connection goes to a checked
 *   address (a pinned `lookup`), never through a second resolution, so DNS
 *   rebinding cannot swap in another address. TLS SNI and `Host` stay the
 *   URL's host. `OUTBOUND_ALLOWED_HOSTS` (comma-separated hostnames, IPs or
 *   CIDRs) lets the operator allow some hosts anyway.
 * - Redirects (301, 302, 303, 307, 308 with a Location) are followed, at most
 *   5, each hop checked like the first; a cross-origin hop drops the headers
 *   that look like credentials; 303, and 301/302 after a POST, continue as GET
 *   without a body.
 * - `timeoutMs` (default 30 s) and the caller's signal, whichever is first,
 *   end the call with `timeout`. The response body is read up to
 *   `maxResponseBytes` (default 5 MiB, after decompression).
 * - Any other status is the caller's to judge: the response is answered, its
 *   body read unless `readBody` says not to.
 *
 * Failures are `Failure`s (lib/platform/failure.ts; retryable ones marked *):
 * `network_error`*, `timeout`*, `ssrf_blocked`, `invalid_url`,
 * `insecure_url`, `invalid_request`, `too_many_redirects`,
 * `response_too_large`. Messages name the method, origin and path, never the
 * query string or a request header value.
 */

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 5 * 1024 * 1024;
export const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Request headers the client sets itself; a caller's values for them are ignored. */
export const MANAGED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection']);
/** Header names whose values are treated as secrets: never in a message, dropped on a cross-origin redirect. */
export const SECRET_HEADER = /auth|cookie|token|secret|passw|session|signature|credential|key/i;

export interface OutboundRequest {
  url: string;
  method: string;
  /** Sent as given (names lower-cased), except MANAGED_HEADERS. */
  headers?: Record<string, string>;
  body?: Buffer;
}

export interface GuardedFetchOptions {
  /** Ends the call with `timeout`; default 30 s. */
  timeoutMs?: number;
  /** The caller's own deadline: its abort ends the call with `timeout` too. */
  signal?: AbortSignal;
  /** How a `timeout` message names that deadline; default "the caller's deadline". */
  signalName?: string;
  /** Bytes of body read at most, after decompression; default 5 MiB. */
  maxResponseBytes?: number;
  /** Whether the body of the final response is read; default for every status. An unread body is discarded. */
  readBody?: (status: number) => boolean;
  /** The operator's settings; default read from the environment on this call. */
  settings?: OutboundSettings;
}

export interface GuardedResponse {
  status: number;
  statusText: string;
  /** Where the final response came from, and with which method, after any redirect. */
  url: URL;
  method: string;
  headers: IncomingHttpHeaders;
  /** Decompressed; undefined when `readBody` declined it. */
  body: Buffer | undefined;
}

/** Replaces secret-looking header values wherever they appear in a message. */
export function redactSecrets(message: string, headers: Record<string, string>): string {
  let out = message;
  for (const [name, value] of Object.entries(headers)) {
    if (SECRET_HEADER.test(name) && value.length >= 4) out = out.split(value).join('[redacted]');
  }
  return out;
}

// ---------------------------------------------------------------- addresses

export { describeUrl } from './outbound-target.js';

/** A `lookup` that answers with the addresses already checked, so the socket cannot go anywhere else. */
function pinnedLookup(addresses: Resolved[]): LookupFunction {
  return ((_hostname: string, options: { all?: boolean; family?: number | string }, callback: (...args: unknown[]) => void) => {
    if (options?.all) {
      callback(null, addresses);
      return;
    }
    const wanted = options?.family === 6 || options?.family === 'IPv6' ? 6 : options?.family === 4 || options?.family === 'IPv4' ? 4 : 0;
    const pick = addresses.find((a) => !wanted || a.family === wanted) ?? addresses[0]!;
    callback(null, pick.address, pick.family);
  }) as unknown as LookupFunction;
}

// ---------------------------------------------------------------- the exchange

interface Hop {
  method: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
}

function send(target: URL, request: Hop, addresses: Resolved[], signal: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const client = target.protocol === 'https:' ? https : http;
    const headers: OutgoingHttpHeaders = { ...request.headers };
    if (request.body) headers['content-length'] = String(request.body.length);
    const req = client.request(
      {
        method: request.method,
        hostname: normalizeHostname(target.hostname),
        port: target.port || undefined,
        path: `${target.pathname}${target.search}`,
        headers,
        agent: false,
        lookup: pinnedLookup(addresses),
        signal,
      },
      resolve,
    );
    req.on('error', reject);
    req.end(request.body);
  });
}

async function readBody(response: IncomingMessage, limit: number, where: string): Promise<Buffer> {
  const tooLarge = () => new Failure('response_too_large', `${where}: the response is larger than ${limit} bytes.`, false);
  const encoding = String(response.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  const declared = Number(response.headers['content-length']);
  if ((encoding === '' || encoding === 'identity') && declared > limit) {
    response.destroy();
    throw tooLarge();
  }
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? zlib.createGunzip()
      : encoding === 'deflate'
        ? zlib.createInflate()
        : encoding === 'br'
          ? zlib.createBrotliDecompress()
          : undefined;
  // pipeline: an error or a premature close on either side ends the other, so the loop below cannot hang.
  const stream: Readable = decoder ? pipeline(response, decoder, () => undefined) : response;
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of stream) {
      total += (chunk as Buffer).length;
      if (total > limit) throw tooLarge();
      chunks.push(chunk as Buffer);
    }
  } finally {
    if (total > limit || !response.complete) {
      response.destroy();
      decoder?.destroy();
    }
  }
  return Buffer.concat(chunks);
}

/** The request for the next hop of a redirect (fetch's rules). */
function redirected(request: Hop, status: number, from: URL, to: URL): Hop {
  const headers = { ...request.headers };
  let { method, body } = request;
  if ((status === 303 && method !== 'HEAD') || ((status === 301 || status === 302) && method === 'POST')) {
    method = 'GET';
    body = undefined;
    delete headers['content-type'];
  }
  if (from.origin !== to.origin) {
    for (const name of Object.keys(headers)) if (SECRET_HEADER.test(name)) delete headers[name];
  }
  return { method, headers, body };
}

/** Sends `request` behind the address guard, following redirects; see the top of this file. */
export async function guardedFetch(request: OutboundRequest, options: GuardedFetchOptions = {}): Promise<GuardedResponse> {
  const settings = options.settings ?? outboundSettings();
  const { method } = request;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    if (!MANAGED_HEADERS.has(name.toLowerCase())) headers[name.toLowerCase()] = value;
  }
  let hop: Hop = { method, headers, body: request.body };
  let target = checkedUrl(request.url, settings);

  // One signal for the call: its own timeout or the caller's, whichever is first.
  const { signal } = options;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const abort = new AbortController();
  const onAbort = () => abort.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  if (signal?.aborted) abort.abort();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  const timedOut = () =>
    new Failure(
      'timeout',
      `${method} ${describeUrl(target)} did not finish within ${signal?.aborted ? (options.signalName ?? "the caller's deadline") : `${timeoutMs} ms`}.`,
    );
  const aborted = new Promise<never>((_, reject) => {
    const fail = () => reject(timedOut());
    if (abort.signal.aborted) fail();
    else abort.signal.addEventListener('abort', fail, { once: true });
  });
  aborted.catch(() => undefined);

  try {
    for (let redirects = 0; ; redirects++) {
      const addresses = await resolveChecked(target, settings, aborted);
      const response = await send(target, hop, addresses, abort.signal);
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      if (REDIRECTS.has(status) && location) {
        response.destroy();
        if (redirects >= MAX_REDIRECTS) {
          throw new Failure('too_many_redirects', `${method} ${describeUrl(target)}: more than ${MAX_REDIRECTS} redirects.`, false);
        }
        let next: URL;
        try {
          next = new URL(location, target);
        } catch {
          throw new Failure('invalid_url', `${describeUrl(target)} redirected to an invalid URL.`, false);
        }
        hop = redirected(hop, status, target, next);
        target = checkedUrl(next.href, settings);
        continue;
      }
      const answered = { status, statusText: response.statusMessage ?? '', url: target, method: hop.method, headers: response.headers };
      if (options.readBody && !options.readBody(status)) {
        response.destroy();
        return { ...answered, body: undefined };
      }
      const body = await readBody(response, options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES, describeUrl(target));
      return { ...answered, body };
    }
  } catch (error) {
    if (abort.signal.aborted) throw timedOut();
    if (error instanceof Failure) throw new Failure(error.code, redactSecrets(error.message, headers), error.retryable);
    const { code, message } = error as NodeJS.ErrnoException;
    if (code === 'ERR_INVALID_CHAR' || code === 'ERR_INVALID_HTTP_TOKEN' || code === 'ERR_INVALID_ARG_VALUE') {
      throw new Failure('invalid_request', redactSecrets(`${method} ${describeUrl(target)}: the request could not be built (${code}).`, headers), false);
    }
    throw new Failure('network_error', redactSecrets(`${hop.method} ${describeUrl(target)} failed: ${code ?? message}.`, headers));
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}
