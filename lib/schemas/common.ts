import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

// Adds `.openapi()` to zod schemas so the OpenAPI document is generated from
// the same schemas that validate requests.
extendZodWithOpenApi(z);

export { z };

export const FieldErrorSchema = z
  .object({
    name: z.string().openapi({ description: 'JSON Pointer for body fields, the plain name for a parameter.' }),
    location: z.enum(['body', 'path', 'query', 'header']),
    reason: z.string(),
    code: z.string().openapi({ example: 'required' }),
  })
  .openapi('FieldError');

export const ProblemSchema = z
  .object({
    type: z.string().openapi({ description: '`{problem_base}/<code>`; do not branch on it.' }),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z.string().openapi({ description: 'Stable machine-readable name; branch on this.' }),
    trace_id: z.string().openapi({ description: 'The X-Request-Id of the request, echoed.' }),
    errors: z.array(FieldErrorSchema).optional(),
  })
  .openapi('Problem');

export const MessageSchema = z.object({ message: z.string() }).openapi('Message');

/** `limit` query parameter of cursor-paged lists. */
export const limitParam = (max: number, fallback: number) =>
  z.coerce
    .number({ error: `must be an integer from 1 to ${max}` })
    .int({ error: `must be an integer from 1 to ${max}` })
    .min(1, { error: `must be an integer from 1 to ${max}` })
    .max(max, { error: `must be an integer from 1 to ${max}` })
    .default(fallback);
