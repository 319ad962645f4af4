import * as z from 'zod';
import { withExample } from '../http/common-schemas.js';

export const FieldErrorSchema = z
  .object({
    name: z.string().meta({ description: 'JSON Pointer for body fields, the plain name for a parameter.' }),
    location: z.enum(['body', 'path', 'query', 'header']),
    reason: z.string(),
    code: z.string().meta({ example: 'required' }),
  })
  .meta({ id: 'FieldError' });

export const ProblemSchema = z
  .object({
    type: z.string().meta({ description: '`{problem_base}/<code>`; do not branch on it.' }),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z.string().meta({ description: 'Stable machine-readable name; branch on this.' }),
    trace_id: z.string().meta({ description: 'The X-Request-Id of the request, echoed.' }),
    errors: z.array(FieldErrorSchema).optional(),
  })
  .meta({ id: 'Problem' });

// Also the answer of a revoke, whose example this is; a refusal's example is its own.
export const MessageSchema = withExample(z.object({ message: z.string() }).meta({ id: 'Message' }), { message: 'Token revoked.' });
