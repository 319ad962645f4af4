import { bearer } from './stack.js';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are JSON the tests read field by field
export type Json = Record<string, any>;

export interface JsonAnswer {
  status: number;
  type: string | null;
  headers: Headers;
  /** The parsed body; undefined when there is none (a 204). */
  body: Json;
}

/** Calls the gateway at `baseUrl` with a bearer token and a JSON body (a string is sent as it is), answering the parsed body. */
export const jsonCaller =
  (baseUrl: () => string) =>
  async (method: string, path: string, token: string, body?: unknown, headers: Record<string, string> = {}): Promise<JsonAnswer> => {
    const response = await fetch(`${baseUrl()}${path}`, {
      method,
      headers: { ...bearer(token), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    return {
      status: response.status,
      type: response.headers.get('content-type'),
      headers: response.headers,
      body: (text ? JSON.parse(text) : undefined) as Json,
    };
  };

/** A problem document without its per-request trace id, so two answers compare equal. */
export const withoutTraceId = (problem: Json) => ({ ...problem, trace_id: undefined });

/** What every cursor-paged list answers 400 to, by query string, with the code: `foreignCursor` is a cursor of another account's list. */
export const badListQueries = (foreignCursor: string): Array<[query: string, code: string]> => [
  ['?limit=0', 'invalid_parameter'],
  ['?limit=101', 'invalid_parameter'],
  ['?limit=x', 'invalid_parameter'],
  ['?cursor=garbage', 'cursor_invalid'],
  [`?limit=1&cursor=${encodeURIComponent(foreignCursor)}`, 'cursor_filter_mismatch'],
];
