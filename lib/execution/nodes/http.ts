import type { IncomingHttpHeaders } from 'node:http';
import type * as z from 'zod';
import { evaluateJsonata } from '#expressions/jsonata.js';
import { renderString, renderValue } from '#expressions/template.js';
import { DEFAULT_MAX_RESPONSE_BYTES, describeUrl, guardedFetch, MANAGED_HEADERS, redactSecrets } from '#net/guarded-fetch.js';
import { type OutboundSettings, outboundSettings } from '#net/outbound-settings.js';
import type { HttpConfig } from '#workflows/index.js';
import { NodeFailure } from '../node-failure.js';
import type { NodeRunContext } from '../node-runner.js';

/**
 * The `http` node: one HTTPS call built from the node input, made by the
 * guarded outbound client (lib/net/guarded-fetch.ts: `https:` only unless
 * `OUTBOUND_ALLOW_INSECURE=true`, every resolved address checked against
 * server-side request forgery unless allowed by `OUTBOUND_ALLOWED_HOSTS`,
 * redirects followed and re-checked, size limit and timeouts; the earlier
 * `HTTP_NODE_ALLOW_INSECURE` / `HTTP_NODE_ALLOWED_HOSTS` are read too).
 *
 * - `url`, header values and the string leaves of `body` may hold
 *   `{{ JSONata }}` templates over the node input (lib/expressions/template.ts); a
 *   body string that is exactly one `{{ }}` takes the result's JSON type.
 *   Values are not URL-encoded: use `$encodeUrlComponent()` in the template.
 *   A body that is a string is sent as text, anything else as JSON; HEAD sends
 *   no body.
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
 * `http_5xx`*, `http_429`*, `http_4xx` and `response_too_large` (the output)
 * here; `network_error`*, `timeout`*, `ssrf_blocked`, `invalid_url`,
 * `insecure_url`, `invalid_request`, `too_many_redirects`,
 * `response_too_large` from the client; `invalid_request` (a header) and
 * `expression_error` from the templates.
 * Messages name the method, origin and path, never the query string or a
 * request header value.
 */

type Config = z.output<typeof HttpConfig>;

/**
 * The output is stored in the node execution item and its event item (DynamoDB: 400 KB
 * each, with the node's input beside it). A larger output would make every
 * delivery fail until the message is dead-lettered (and the call be repeated
 * on each delivery), so it fails the node at once instead, whatever
 * HTTP_NODE_MAX_RESPONSE_BYTES allows to be read.
 */
const MAX_OUTPUT_JSON_BYTES = 300_000;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

// ---------------------------------------------------------------- settings

export interface HttpNodeSettings extends OutboundSettings {
  maxResponseBytes: number;
}

/** The operator's outbound settings (lib/net/outbound-settings.ts) and the node's own read limit; read on every call. */
export function httpNodeSettings(env: NodeJS.ProcessEnv = process.env): HttpNodeSettings {
  const max = Number(env.HTTP_NODE_MAX_RESPONSE_BYTES);
  return {
    ...outboundSettings(env),
    maxResponseBytes: Number.isSafeInteger(max) && max > 0 ? max : DEFAULT_MAX_RESPONSE_BYTES,
  };
}

// ---------------------------------------------------------------- request

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

// ---------------------------------------------------------------- response

/** The failure a status means, its message with the request's secret header values redacted. */
function statusFailure(status: number, statusText: string, where: string, method: string, headers: Record<string, string>): NodeFailure | undefined {
  const text = redactSecrets(`${method} ${where} answered ${status}${statusText ? ` ${statusText}` : ''}.`, headers);
  if (status === 429) return new NodeFailure('http_429', text, true);
  if (status >= 500) return new NodeFailure('http_5xx', text, true);
  if (status >= 400) return new NodeFailure('http_4xx', text, false);
  return undefined;
}

function decodeBody(headers: IncomingHttpHeaders, bytes: Buffer): unknown {
  const contentType = String(headers['content-type'] ?? '');
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

function responseHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || name === 'set-cookie') continue; // Cookies are credentials; they would be stored with the output.
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

// ---------------------------------------------------------------- the node

export async function httpNode({ node, input, signal }: Pick<NodeRunContext, 'node' | 'input' | 'signal'>): Promise<unknown> {
  const settings = httpNodeSettings();
  const config = node.config as Config;
  const evaluate = (expression: string) => evaluateJsonata(expression, input);

  const url = await renderString(config.url, evaluate);
  const headers = await buildHeaders(config, evaluate);
  const method = config.method;
  const body = method === 'HEAD' ? undefined : encodeBody(await renderValue(config.body, evaluate), headers);

  const response = await guardedFetch(
    { url, method, headers, body },
    {
      settings,
      timeoutMs: config.timeout_ms,
      signal,
      signalName: "the node's timeout",
      maxResponseBytes: settings.maxResponseBytes,
      // A failing status fails the node without its body being read.
      readBody: (status) => status < 400,
    },
  );
  const where = describeUrl(response.url);
  const failure = statusFailure(response.status, response.statusText, where, response.method, headers);
  if (failure) throw failure;
  const output = { status: response.status, headers: responseHeaders(response.headers), body: decodeBody(response.headers, response.body!) };
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
