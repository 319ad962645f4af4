// Namespace import, property access only: esbuild then keeps just the parts
// of zod a handler uses (the named `z` export drags in every locale).
// `.meta({ id, description })` feeds the OpenAPI generator (lib/app/openapi/).
// Schemas the OpenAPI document alone needs go in the feature's openapi/*-responses.ts: every handler importing a module here builds all its schemas at load.
import * as z from 'zod';

/** `limit` query parameter of cursor-paged lists. */
export const limitParam = (max: number, fallback: number) =>
  z.coerce
    .number({ error: `must be an integer from 1 to ${max}` })
    .int({ error: `must be an integer from 1 to ${max}` })
    .min(1, { error: `must be an integer from 1 to ${max}` })
    .max(max, { error: `must be an integer from 1 to ${max}` })
    .default(fallback);
