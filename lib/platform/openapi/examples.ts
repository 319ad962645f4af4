import * as z from 'zod';
import { TITLES } from '../http/problem.js';

/** The example `withExample` recorded for `schema` (or one its metadata states as OpenAPI's `example`), if any. */
export function exampleOf(schema: z.ZodType): unknown {
  const meta = z.globalRegistry.get(schema);
  return (meta?.examples as unknown[] | undefined)?.[0] ?? meta?.example;
}

/**
 * The code a refusal's description names first: one in backticks that opens
 * a parenthesis, else the first snake_case one, else the first at all (the
 * descriptions name codes so, `(\`not_found\`)`).
 */
export function firstCode(description: string): string | undefined {
  const code = '`([a-z][a-z0-9_]*)`';
  return (
    new RegExp(`\\(${code}`).exec(description)?.[1] ?? /`([a-z][a-z0-9]*(?:_[a-z0-9]+)+)`/.exec(description)?.[1] ?? new RegExp(code).exec(description)?.[1]
  );
}

/** The description's first clause without its markup and asides, as the text a person is shown. */
const sentenceOf = (description: string): string =>
  `${description
    .replace(/`/g, '')
    .replace(/\s*\([^()]*\)/g, '')
    .split(/[.;:](?:\s|$)/)[0]
    ?.trim()}.`;

const WITH_FIELD_ERRORS = new Set(['validation_failed', 'invalid_parameter', 'unknown_field']);

/** The field error of the example: one on the body's first field (`field`), or else on the query's `limit`. */
function fieldError(code: string, field: string | undefined) {
  if (code === 'unknown_field') return { name: '/nmae', location: 'body', reason: 'is not a field of this request', code };
  return field === undefined
    ? { name: 'limit', location: 'query', reason: 'must be an integer from 1 to 100', code: 'too_big' }
    : { name: `/${field}`, location: 'body', reason: 'is required', code: 'required' };
}

/**
 * The example of a refusal's body: a problem document for its status and the
 * first code its description names (with one field error where the code has
 * them: on `field` of the body, if it has one), merged with the example of the members `extension` adds; or, for the
 * token calls, `{message}`.
 */
export function refusalExample(options: { status: number; description: string; format: 'problem' | 'message'; field?: string; extension?: unknown }) {
  const { status, description, format, field, extension } = options;
  if (format === 'message') return { message: sentenceOf(description) };
  const code = firstCode(description) ?? 'internal_error';
  return {
    type: `https://api.example.com/problems/${code}`,
    title: TITLES[status] ?? 'Error',
    status,
    detail: sentenceOf(description),
    code,
    trace_id: '8d2f4c1a-3b5e-4f6a-9c7d-0e1f2a3b4c5d',
    ...(WITH_FIELD_ERRORS.has(code) ? { errors: [fieldError(code, field)] } : {}),
    ...(extension as object | undefined),
  };
}
