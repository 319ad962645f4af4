// Namespace import, property access only: esbuild then keeps just the parts
// of zod a handler uses (the named `z` export drags in every locale).
// `.meta({ id, description })` feeds the OpenAPI generator (lib/app/openapi/).
// Schemas the OpenAPI document alone needs go in the feature's openapi/*-responses.ts: every handler importing a module here builds all its schemas at load.
import * as z from 'zod';
import { JSON_MAX_DEPTH } from '../config/limits.js';
import { jsonDepth } from '../json-depth.js';

/** `limit` query parameter of cursor-paged lists. */
export const limitParam = (max: number, fallback: number) =>
  z.coerce
    .number({ error: `must be an integer from 1 to ${max}` })
    .int({ error: `must be an integer from 1 to ${max}` })
    .min(1, { error: `must be an integer from 1 to ${max}` })
    .max(max, { error: `must be an integer from 1 to ${max}` })
    .default(fallback);

/** What an OpenAPI description says of a field bounded by `boundedJson`. */
export const JSON_DEPTH_RULE = `Objects and arrays nest at most ${JSON_MAX_DEPTH} levels deep in it (deeper: 422 \`validation_failed\`, code \`too_deep\`).`;

/**
 * `schema`, refused past `maxDepth` levels of nesting (JSON_MAX_DEPTH: what
 * the service can store with every wrapper it adds): 422 validation_failed
 * naming the field, code `too_deep`.
 */
export const boundedJson = <T extends z.ZodType>(schema: T, maxDepth = JSON_MAX_DEPTH): T =>
  schema.refine((value) => jsonDepth(value, maxDepth) <= maxDepth, {
    error: `must nest objects and arrays at most ${maxDepth} levels deep`,
    params: { code: 'too_deep' },
  }) as T;
