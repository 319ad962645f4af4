import type { HttpResult } from './types.js';

export function json(statusCode: number, body: unknown, headers: Record<string, string> = {}): HttpResult {
  return jsonText(statusCode, JSON.stringify(body), headers);
}

/** For a body that is JSON text already, so it is not parsed and serialized again. */
export function jsonText(statusCode: number, body: string, headers: Record<string, string> = {}): HttpResult {
  return { statusCode, headers: { 'Content-Type': 'application/json', ...headers }, body };
}

export function noContent(headers: Record<string, string> = {}): HttpResult {
  return { statusCode: 204, headers, body: '' };
}

/** Header lookup that ignores case, as HTTP does. */
export function header(headers: Record<string, string | undefined> | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === wanted) return value;
  }
  return undefined;
}
