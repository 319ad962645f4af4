import type { z } from 'zod';
import { JSON_BODY_MAX_DEPTH } from '../config/limits.js';
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

/** zod's codes are stable names already; a missing value is reported as `required`, a refinement by the code it names (`params.code`). */
function issueCode(issue: Issue, input: unknown): string {
  if (issue.code === 'invalid_type' && valueAt(input, issue.path) === undefined) return 'required';
  if (issue.code === 'custom' && typeof issue.params?.code === 'string') return issue.params.code;
  return issue.code;
}

function issueReason(issue: Issue, input: unknown): string {
  return issueCode(issue, input) === 'required' ? 'is required' : issue.message;
}

export function rawBody(event: HttpEvent): string | undefined {
  if (event.body === undefined || event.body === null || event.body === '') return undefined;
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const OPENERS = new Set([0x7b, 0x5b]); // { [
const CLOSERS = new Set([0x7d, 0x5d]); // } ]

/**
 * Whether JSON text nests objects and arrays more than `limit` deep, read
 * as text: brackets counted outside strings, one pass, no recursion and
 * nothing built per level, so a body thousands of levels deep costs no
 * more than its length. When it does, the top-level member it happens
 * under (`member`, decoded; undefined when the text is no object or has
 * none yet). Text that is not JSON is read as far as it goes.
 */
export function nestingPast(text: string, limit: number): { member: string | undefined } | undefined {
  let depth = 0;
  let inString = false;
  /** Where the string being read started, when it is a candidate top-level key (depth 1). */
  let stringStart = -1;
  let lastString: string | undefined;
  let member: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) {
        inString = false;
        if (stringStart >= 0) lastString = text.slice(stringStart, i + 1);
      }
    } else if (c === QUOTE) {
      inString = true;
      stringStart = depth === 1 ? i : -1;
    } else if (OPENERS.has(c)) {
      depth++;
      if (depth > limit) return { member };
    } else if (CLOSERS.has(c)) {
      depth--;
    } else if (c === COLON && depth === 1 && lastString !== undefined) {
      member = decodedKey(lastString);
    }
  }
  return undefined;
}

/** A key's string literal as its sender meant it, escapes decoded. */
function decodedKey(literal: string): string {
  try {
    return String(JSON.parse(literal));
  } catch {
    return literal.slice(1, -1);
  }
}

/**
 * Parses and validates a JSON body against a strict object schema:
 * nested deeper than JSON_BODY_MAX_DEPTH → 422 validation_failed naming the
 * top-level field it is under (code `too_deep`), before the text is parsed;
 * not JSON → 400 invalid_json; not an object → 400 invalid_body; a field the
 * schema does not know → 400 unknown_field; anything else → 422
 * validation_failed with one entry per field. An absent body is `{}`.
 */
export function parseBody<T>(event: HttpEvent, schema: z.ZodType<T>): { value: T; raw: unknown } {
  const text = rawBody(event);
  let raw: unknown = {};
  if (text !== undefined) {
    const deep = nestingPast(text, JSON_BODY_MAX_DEPTH);
    if (deep) {
      if (!text.trimStart().startsWith('{')) throw new InvalidBodyError();
      const reason = `nests objects and arrays more than ${JSON_BODY_MAX_DEPTH} levels deep`;
      throw new ValidationError([{ name: jsonPointer(deep.member === undefined ? [] : [deep.member]), location: 'body', reason, code: 'too_deep' }]);
    }
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
