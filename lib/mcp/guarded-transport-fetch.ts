import { guardedFetch } from '#net/guarded-fetch.js';
import type { OutboundSettings } from '#net/outbound-settings.js';

/** Answers larger than this (after decompression) fail the exchange. */
export const MCP_MAX_RESPONSE_BYTES = 5 * 1024 * 1024;

/** Statuses whose Response must have no body. */
const NULL_BODY = new Set([101, 204, 205, 304]);

/** What the SDK's transport calls: the WHATWG `fetch` signature. */
export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

function headersOf(init: RequestInit['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(init).forEach((value, name) => {
    out[name] = value;
  });
  return out;
}

function bodyOf(body: RequestInit['body']): Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  throw new TypeError('The MCP transport sent a request body this client does not send (not a string or bytes).');
}

/**
 * A `fetch` for the SDK's StreamableHTTPClientTransport whose every request
 * goes through the outbound address guard (lib/net/guarded-fetch.ts: `https:`
 * only unless `OUTBOUND_ALLOW_INSECURE`, non-public addresses refused unless
 * `OUTBOUND_ALLOWED_HOSTS` allows them, each redirect hop checked again).
 *
 * - The answer is read whole before the SDK sees it (at most
 *   MCP_MAX_RESPONSE_BYTES), then handed over as a Response: a JSON answer
 *   or an SSE stream the server closes after its response, as streamable
 *   HTTP servers do for a POST.
 * - A GET, the optional standalone SSE stream for server-initiated
 *   messages, is answered 405 here without contacting the server: this
 *   client makes requests and needs no such stream (and a stream that never
 *   ends cannot be read whole). The SDK takes 405 as "no stream offered".
 * - `signal` (the exchange's deadline) and the transport's own signal both
 *   end a request; so does `timeoutMs`, per request.
 */
export function guardedTransportFetch(options: { signal: AbortSignal; timeoutMs: number; settings?: OutboundSettings }): FetchLike {
  return async (url, init = {}) => {
    const method = (init.method ?? 'GET').toUpperCase();
    if (method === 'GET') return new Response(null, { status: 405, statusText: 'Method Not Allowed' });
    const signal = init.signal ? AbortSignal.any([options.signal, init.signal]) : options.signal;
    const answer = await guardedFetch(
      { url: String(url), method, headers: headersOf(init.headers), body: bodyOf(init.body) },
      { signal, timeoutMs: options.timeoutMs, maxResponseBytes: MCP_MAX_RESPONSE_BYTES, settings: options.settings },
    );
    const headers = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      // The body is decompressed already and its length may differ.
      if (value === undefined || name === 'content-encoding' || name === 'content-length') continue;
      for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
    }
    if (answer.status < 200 || answer.status > 599) throw new TypeError(`The server answered HTTP status ${answer.status}.`);
    return new Response(NULL_BODY.has(answer.status) ? null : answer.body, { status: answer.status, statusText: answer.statusText, headers });
  };
}
