import type { z } from 'zod';
import { type FieldError, InvalidBodyError, InvalidJsonError, InvalidParameterError, UnknownFieldError, ValidationError } from '../errors.js';
import type { HttpEvent } from './types.js';

type Issue = z.core.$ZodIssue;

const escapePointer = (segment: PropertyKey): string => String(segment).replace(/~/g, '~0').replace(/\//g, '~1');
export const jsonPointer = (path: readonly PropertyKey[]): string => path.map((s) => `/${escapePointer(s)}`).join('');

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let current: unknown = root;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[segment];
  }
  return current;
}

/** zod's codes are stable names already; a missing value is reported as `required`. */
function issueCode(issue: Issue, input: unknown): string {
  if (issue.code === 'invalid_type' && valueAt(input, issue.path) === undefined) return 'required';
  return issue.code;
}

function issueReason(issue: Issue, input: unknown): string {
  return issueCode(issue, input) === 'required' ? 'is required' : issue.message;
}

export function rawBody(event: HttpEvent): string | undefined {
  if (event.body === undefined || event.body === null || event.body === '') return undefined;
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
}

/**
 * Parses and validates a JSON body against a strict object schema:
 * not JSON → 400 invalid_json; not an object → 400 invalid_body; a field the
 * schema does not know → 400 unknown_field; anything else → 422
 * validation_failed with one entry per field. An absent body is `{}`.
 */
export function parseBody<T>(event: HttpEvent, schema: z.ZodType<T>): { value: T; raw: unknown } {
  const text = rawBody(event);
  let raw: unknown = {};
  if (text !== undefined) {
    try {
      raw = JSON.parse(text);
    } catch {
      throw new InvalidJsonError();
    }
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new InvalidBodyError();
  const result = schema.safeParse(raw);
  if (result.success) return { value: result.data, raw };
  const unknown: FieldError[] = [];
  const invalid: FieldError[] = [];
  for (const issue of result.error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        unknown.push({ name: jsonPointer([...issue.path, key]), location: 'body', reason: 'is not a field of this request', code: 'unknown_field' });
      }
    } else {
      invalid.push({ name: jsonPointer(issue.path), location: 'body', reason: issueReason(issue, raw), code: issueCode(issue, raw) });
    }
  }
  if (unknown.length > 0) throw new UnknownFieldError(unknown);
  throw new ValidationError(invalid);
}

/** Query parameters: every fault is 400 invalid_parameter naming the parameter. */
export function parseQuery<T>(event: HttpEvent, schema: z.ZodType<T>): T {
  const input = { ...(event.queryStringParameters ?? {}) };
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const errors = result.error.issues.map((issue) => ({
    name: issue.path.map(String).join('.') || 'query',
    location: 'query' as const,
    reason: issueReason(issue, input),
    code: issueCode(issue, input),
  }));
  throw new InvalidParameterError(errors);
}
