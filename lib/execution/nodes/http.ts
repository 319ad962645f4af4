import { lookup as dnsLookup } from 'node:dns/promises';
import http, { type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';
import { isIP, isIPv4, isIPv6, type LookupFunction } from 'node:net';
import { pipeline, type Readable } from 'node:stream';
import zlib from 'node:zlib';
import type * as z from 'zod';
import { evaluateJsonata } from '#expressions/jsonata.js';
import { renderString, renderValue } from '#expressions/template.js';
import type { HttpConfig } from '#workflows/index.js';
import { NodeFailure } from '../node-failure.js';
import type { NodeRunContext } from '../node-runner.js';

/**
 * The `http` node: one HTTPS call built from the node input.
 *
 * - `url`, header values and the string leaves of `body` may hold
 *   `{{ JSONata }}` templates over the node input (lib/expressions/template.ts); a
 *   body string that is exactly one `{{ }}` takes the result's JSON type.
 *   Values are not URL-encoded: use `$encodeUrlComponent()` in the template.
 *   A body that is a string is sent as text, anything else as JSON; HEAD sends
 *   no body.
 * - Only `https:`, unless the operator sets `HTTP_NODE_ALLOW_INSECURE=true`.
 * - Server-side request forgery: the host is resolved once, every address is
 *   checked (`blockedReason`), and the connection goes to a checked address
 *   (a pinned `lookup`), never through a second resolution, so DNS rebinding
 *   cannot swap in another address. TLS SNI and `Host` stay the URL's host.
 *   `HTTP_NODE_ALLOWED_HOSTS` (comma-separated hostnames, IPs or CIDRs) lets
 *   the operator allow some hosts anyway.
 * - Redirects (301, 302, 303, 307, 308 with a Location) are followed, at most
 *   5, each hop checked like the first; a cross-origin hop drops the headers
 *   that look like credentials; 303, and 301/302 after a POST, continue as GET
 *   without a body.
 * - `config.timeout_ms` (default 30 s) and the executor's signal, whichever is
 *   first, end the call with `timeout`. The response body is read up to
 *   `HTTP_NODE_MAX_RESPONSE_BYTES` (default 5 MiB, after decompression), and
 *   the output must fit in 300 000 bytes of JSON to be stored.
 * - Output `{status, headers, body}`: every response header lower-cased except
 *   `set-cookie`; the body parsed when the content type is JSON, else text.
 *   2xx, and a 3xx that is not followed (304, or no Location), are output;
 *   429 and 5xx fail retryably, other 4xx not.
 *
 * Failure codes (for a node's `retry.retry_on`; retryable ones marked *):
 * `http_5xx`*, `http_429`*, `network_error`*, `timeout`*, `http_4xx`,
 * `ssrf_blocked`, `invalid_url`, `insecure_url`, `invalid_request`,
 * `too_many_redirects`, `response_too_large`, `expression_error`.
 * Messages name the method, origin and path, never the query string or a
 * request header value.
 */

type Config = z.output<typeof HttpConfig>;

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_RESPONSE_BYTES = 5 * 1024 * 1024;
const MAX_REDIRECTS = 5;
/**
 * The output is stored in the node execution item and its event item (DynamoDB: 400 KB
 * each, with the node's input beside it). A larger output would make every
 * delivery fail until the message is dead-lettered (and the call be repeated
 * on each delivery), so it fails the node at once instead, whatever
 * HTTP_NODE_MAX_RESPONSE_BYTES allows to be read.
 */
const MAX_OUTPUT_JSON_BYTES = 300_000;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const METADATA_HOSTNAMES = new Set(['metadata.google.internal', 'metadata', 'instance-data', 'instance-data.ec2.internal']);
/** Request headers we set ourselves; a config's values for them are ignored. */
const MANAGED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection']);
/** Header names whose values are treated as secrets: never in a message, dropped on a cross-origin redirect. */
export const SECRET_HEADER = /auth|cookie|token|secret|passw|session|signature|credential|key/i;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

// ---------------------------------------------------------------- settings

interface Cidr {
  family: 4 | 6;
  base: bigint;
  bits: number;
}

export interface HttpNodeSettings {
  allowInsecure: boolean;
  allowedHostnames: Set<string>;
  allowedCidrs: Cidr[];
  maxResponseBytes: number;
}

/** Read on every call, so the operator's settings (and tests) take effect without a reload. */
export function httpNodeSettings(env: NodeJS.ProcessEnv = process.env): HttpNodeSettings {
  const allowedHostnames = new Set<string>();
  const allowedCidrs: Cidr[] = [];
  for (const entry of (env.HTTP_NODE_ALLOWED_HOSTS ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const cidr = parseCidr(entry);
    if (cidr) allowedCidrs.push(cidr);
    else allowedHostnames.add(normalizeHostname(entry));
  }
  const max = Number(env.HTTP_NODE_MAX_RESPONSE_BYTES);
  return {
    allowInsecure: env.HTTP_NODE_ALLOW_INSECURE === 'true',
    allowedHostnames,
    allowedCidrs,
    maxResponseBytes: Number.isSafeInteger(max) && max > 0 ? max : DEFAULT_MAX_RESPONSE_BYTES,
  };
}

const normalizeHostname = (host: string): string =>
  host
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.+$/, '');

// ---------------------------------------------------------------- addresses

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

function parseCidr(text: string): Cidr | undefined {
  const [address = '', prefix] = text.split('/');
  const v4 = ipv4Value(address);
  const v6 = v4 === undefined ? ipv6Value(address) : undefined;
  if (v4 === undefined && v6 === undefined) return undefined;
  const family = v4 !== undefined ? 4 : 6;
  const width = family === 4 ? 32 : 128;
  const bits = prefix === undefined ? width : Number(prefix);
  if (!Number.isInteger(bits) || bits < 0 || bits > width || (prefix !== undefined && !/^\d+$/.test(prefix))) return undefined;
  const mask = ((1n << BigInt(width)) - 1n) ^ ((1n << BigInt(width - bits)) - 1n);
  return { family, base: (v4 ?? v6)! & mask, bits };
}

function inCidr(family: 4 | 6, value: bigint, cidr: Cidr): boolean {
  if (family !== cidr.family) return false;
  const width = family === 4 ? 32 : 128;
  const mask = ((1n << BigInt(width)) - 1n) ^ ((1n << BigInt(width - cidr.bits)) - 1n);
  return (value & mask) === cidr.base;
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

function addressAllowed(address: string, settings: HttpNodeSettings): boolean {
  const v4 = ipv4Value(address);
  const v6 = v4 === undefined ? ipv6Value(address) : undefined;
  const inner = v6 !== undefined ? embeddedIpv4(v6) : undefined;
  return settings.allowedCidrs.some(
    (cidr) => (v4 !== undefined && inCidr(4, v4, cidr)) || (v6 !== undefined && inCidr(6, v6, cidr)) || (inner !== undefined && inCidr(4, inner, cidr)),
  );
}

interface Resolved {
  address: string;
  family: 4 | 6;
}

/** Resolves a URL's host once and checks every address; the result is what the connection may use. */
async function resolveChecked(target: URL, settings: HttpNodeSettings, until: Promise<never>): Promise<Resolved[]> {
  const host = normalizeHostname(target.hostname);
  const hostAllowed = settings.allowedHostnames.has(host);
  const where = describe(target);
  if (METADATA_HOSTNAMES.has(host) && !hostAllowed) {
    throw new NodeFailure('ssrf_blocked', `${where}: ${host} is a cloud metadata host and may not be called.`, false);
  }
  let addresses: Resolved[];
  const literal = isIP(host);
  if (literal) {
    addresses = [{ address: host, family: literal as 4 | 6 }];
  } else {
    try {
      const found = await Promise.race([dnsLookup(host, { all: true, verbatim: true }), until]);
      addresses = found.map((a) => ({ address: a.address, family: a.family as 4 | 6 }));
    } catch (error) {
      if (error instanceof NodeFailure) throw error;
      throw new NodeFailure('network_error', `${where}: ${host} could not be resolved (${(error as NodeJS.ErrnoException).code ?? 'DNS error'}).`);
    }
    if (addresses.length === 0) throw new NodeFailure('network_error', `${where}: ${host} has no address.`);
  }
  if (!hostAllowed) {
    for (const { address } of addresses) {
      const reason = blockedReason(address);
      if (reason && !addressAllowed(address, settings)) {
        throw new NodeFailure('ssrf_blocked', `${where}: ${host} resolves to ${address}, a ${reason} address, which may not be called.`, false);
      }
    }
  }
  return addresses;
}

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

// ---------------------------------------------------------------- the call

/** Origin and path only: a query string may carry secrets. */
const describe = (target: URL): string => `${target.origin}${target.pathname}`;

function checkedUrl(text: string, settings: HttpNodeSettings): URL {
  let target: URL;
  try {
    target = new URL(text);
  } catch {
    throw new NodeFailure('invalid_url', 'The url is not a valid absolute URL.', false);
  }
  if (target.protocol !== 'https:' && target.protocol !== 'http:') {
    throw new NodeFailure('invalid_url', `The url's scheme ${target.protocol} is not allowed; use https:.`, false);
  }
  if (target.protocol === 'http:' && !settings.allowInsecure) {
    throw new NodeFailure('insecure_url', `${describe(target)}: plain http: is not allowed; use https:.`, false);
  }
  if (target.username || target.password) {
    throw new NodeFailure('invalid_url', `${describe(target)}: credentials in the URL are not supported; send an Authorization header.`, false);
  }
  return target;
}

interface Outgoing {
  method: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
}

function send(target: URL, request: Outgoing, addresses: Resolved[], signal: AbortSignal): Promise<IncomingMessage> {
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
  const tooLarge = () => new NodeFailure('response_too_large', `${where}: the response is larger than ${limit} bytes.`, false);
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

function decodeBody(response: IncomingMessage, bytes: Buffer): unknown {
  const contentType = String(response.headers['content-type'] ?? '');
  const charset = /;\s*charset="?([\w.:-]+)"?/i.exec(contentType)?.[1] ?? 'utf-8';
  let text: string;
  try {
    text = new TextDecoder(charset).decode(bytes);
  } catch {
    text = bytes.toString('utf8');
  }
  if (/^[\w.+-]+\/(?:[\w.+-]*\+)?json\s*(?:;|$)/i.test(contentType)) {
    if (text.trim() === '') return null;
    try {
      return JSON.parse(text);
    } catch {
      return text; // Labelled JSON but is not: kept as text rather than failing the call.
    }
  }
  return text;
}

function responseHeaders(response: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value === undefined || name === 'set-cookie') continue; // Cookies are credentials; they would be stored with the output.
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function statusFailure(status: number, statusText: string, where: string, method: string): NodeFailure | undefined {
  const text = `${method} ${where} answered ${status}${statusText ? ` ${statusText}` : ''}.`;
  if (status === 429) return new NodeFailure('http_429', text, true);
  if (status >= 500) return new NodeFailure('http_5xx', text, true);
  if (status >= 400) return new NodeFailure('http_4xx', text, false);
  return undefined;
}

/** Header names and values as they will be sent (templated, checked). */
async function buildHeaders(config: Config, evaluate: (e: string) => Promise<unknown>): Promise<Record<string, string>> {
  const headers: Record<string, string> = {};
  for (const [name, template] of Object.entries(config.headers ?? {})) {
    if (!HEADER_NAME.test(name)) throw new NodeFailure('invalid_request', `The header name "${name}" is not valid.`, false);
    const lower = name.toLowerCase();
    if (MANAGED_HEADERS.has(lower)) continue;
    const value = await renderString(template, evaluate);
    // Only the name is reported: the value may be a secret.
    if (/[\r\n\0]/.test(value)) throw new NodeFailure('invalid_request', `The value of header "${name}" contains a line break or NUL.`, false);
    headers[lower] = value;
  }
  headers['user-agent'] ??= 'workflow-service-http-node/1';
  return headers;
}

function encodeBody(body: unknown, headers: Record<string, string>): Buffer | undefined {
  if (body === undefined) return undefined;
  if (typeof body === 'string') {
    headers['content-type'] ??= 'text/plain; charset=utf-8';
    return Buffer.from(body, 'utf8');
  }
  headers['content-type'] ??= 'application/json';
  return Buffer.from(JSON.stringify(body), 'utf8');
}

/** Replaces secret-looking header values wherever they appear in a message. */
function redact(message: string, headers: Record<string, string>): string {
  let out = message;
  for (const [name, value] of Object.entries(headers)) {
    if (SECRET_HEADER.test(name) && value.length >= 4) out = out.split(value).join('[redacted]');
  }
  return out;
}

export async function httpNode({ node, input, signal }: Pick<NodeRunContext, 'node' | 'input' | 'signal'>): Promise<unknown> {
  const settings = httpNodeSettings();
  const config = node.config as Config;
  const evaluate = (expression: string) => evaluateJsonata(expression, input);

  const url = await renderString(config.url, evaluate);
  const headers = await buildHeaders(config, evaluate);
  const method = config.method;
  const body = method === 'HEAD' ? undefined : encodeBody(await renderValue(config.body, evaluate), headers);
  let request: Outgoing = { method, headers, body };
  let target = checkedUrl(url, settings);

  // One signal for the call: the node's own timeout or the executor's, whichever is first.
  const timeoutMs = config.timeout_ms ?? DEFAULT_TIMEOUT_MS;
  const abort = new AbortController();
  const onAbort = () => abort.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  if (signal.aborted) abort.abort();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  const timedOut = () =>
    new NodeFailure('timeout', `${method} ${describe(target)} did not finish within ${signal.aborted ? "the node's timeout" : `${timeoutMs} ms`}.`);
  const aborted = new Promise<never>((_, reject) => {
    const fail = () => reject(timedOut());
    if (abort.signal.aborted) fail();
    else abort.signal.addEventListener('abort', fail, { once: true });
  });
  aborted.catch(() => undefined);

  try {
    for (let redirects = 0; ; redirects++) {
      const addresses = await resolveChecked(target, settings, aborted);
      const response = await send(target, request, addresses, abort.signal);
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      if (REDIRECTS.has(status) && location) {
        response.destroy();
        if (redirects >= MAX_REDIRECTS) {
          throw new NodeFailure('too_many_redirects', `${method} ${describe(target)}: more than ${MAX_REDIRECTS} redirects.`, false);
        }
        let next: URL;
        try {
          next = new URL(location, target);
        } catch {
          throw new NodeFailure('invalid_url', `${describe(target)} redirected to an invalid URL.`, false);
        }
        request = redirected(request, status, target, next);
        target = checkedUrl(next.href, settings);
        continue;
      }
      const where = describe(target);
      const failure = statusFailure(status, response.statusMessage ?? '', where, request.method);
      if (failure) {
        response.destroy();
        throw failure;
      }
      const bytes = await readBody(response, settings.maxResponseBytes, where);
      const output = { status, headers: responseHeaders(response), body: decodeBody(response, bytes) };
      const stored = Buffer.byteLength(JSON.stringify(output));
      if (stored > MAX_OUTPUT_JSON_BYTES) {
        throw new NodeFailure(
          'response_too_large',
          `${where}: the response is too large to keep as the node's output (${stored} bytes as JSON; at most ${MAX_OUTPUT_JSON_BYTES}).`,
          false,
        );
      }
      return output;
    }
  } catch (error) {
    if (abort.signal.aborted) throw timedOut();
    if (error instanceof NodeFailure) throw new NodeFailure(error.code, redact(error.message, headers), error.retryable);
    const { code, message } = error as NodeJS.ErrnoException;
    if (code === 'ERR_INVALID_CHAR' || code === 'ERR_INVALID_HTTP_TOKEN' || code === 'ERR_INVALID_ARG_VALUE') {
      throw new NodeFailure('invalid_request', redact(`${method} ${describe(target)}: the request could not be built (${code}).`, headers), false);
    }
    throw new NodeFailure('network_error', redact(`${request.method} ${describe(target)} failed: ${code ?? message}.`, headers));
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
  }
}

/** The request for the next hop of a redirect (fetch's rules). */
function redirected(request: Outgoing, status: number, from: URL, to: URL): Outgoing {
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
