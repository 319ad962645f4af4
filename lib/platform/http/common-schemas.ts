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
/** A closed object of optional positive integers, each with its description, all refused with one `rule`. */
export const optionalPositiveIntegers = <const N extends string>(names: readonly N[], descriptions: Readonly<Record<N, string>>, rule: string) =>
  z.strictObject(
    Object.fromEntries(
      names.map((name) => [name, z.number({ error: rule }).int({ error: rule }).min(1, { error: rule }).optional().meta({ description: descriptions[name] })]),
    ) as Record<N, z.ZodOptional<z.ZodNumber>>,
  );

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

/** `T`, also as a constant written `as const` (every level read-only). */
type Example<T> = T extends readonly (infer U)[] ? readonly Example<U>[] : T extends object ? { readonly [K in keyof T]: Example<T[K]> } : T;

/**
 * Records `example` as the example of `schema` (JSON Schema's `examples`): the
 * document shows it on every request or response body of that schema, and a
 * unit test checks it against the schema. The registry entry is amended, not
 * cloned, because a clone would be a second schema of the same `id`.
 */
export const withExample = <S extends z.ZodType>(schema: S, example: Example<z.input<S>>): S => {
  z.globalRegistry.add(schema, { ...z.globalRegistry.get(schema), examples: [example] });
  return schema;
};

const DOCUMENTED_AS = new WeakMap<z.ZodType, () => z.ZodType>();

/**
 * States that the document describes `schema` as `documented()`: for a body
 * whose use case, not its parser, checks part of it (so that every fault is
 * answered at once), the stricter schema a client should be typed against.
 * A thunk, so that a handler never builds it.
 */
export const documentedAs = <S extends z.ZodType>(schema: S, documented: () => z.ZodType): S => {
  let built: z.ZodType | undefined;
  DOCUMENTED_AS.set(schema, () => (built ??= documented()));
  return schema;
};

/** The schema the document states for `schema`: what `documentedAs` named, or itself. */
export const documentationOf = (schema: z.ZodType): z.ZodType => DOCUMENTED_AS.get(schema)?.() ?? schema;
