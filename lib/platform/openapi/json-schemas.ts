import * as z from 'zod';

/** The side of the wire a schema is stated for, as zod's `io` names it. */
export type Io = 'input' | 'output';
export type JsonSchema = Record<string, unknown>;

const LOCAL = '#/$defs/';
const COMPONENTS = '#/components/schemas/';

/**
 * The document's JSON Schemas, converted by zod 4 in the mode of their side:
 * a request body as its input (a field with a default may be left out, so it
 * is not `required`), a response as its output (that field is always there,
 * so it is). zod-to-openapi states every schema alike, the request's way, so
 * here it only lays out paths and parameters.
 *
 * A schema with a zod `id` is one component of that name. One stated on both
 * sides whose two forms differ (it holds a default) is two: the response's
 * keeps the name, the request's is `<id>Input`.
 *
 * A name depends on every use, so there are two passes: `collect` every
 * schema, then `resolve` each, which answers it with `$ref`s to the names.
 */
export class JsonSchemas {
  /** The JSON text of each zod id, per side, in the order first met. */
  private readonly forms = new Map<string, Partial<Record<Io, string>>>();
  private readonly roots = new Map<z.ZodType, Partial<Record<Io, JsonSchema>>>();
  private names?: Map<string, Record<Io, string>>;

  collect = (schema: z.ZodType, io: Io): JsonSchema => {
    if (this.names) throw new Error('every schema is collected before the first is resolved');
    const known = this.roots.get(schema) ?? {};
    if (known[io]) return known[io];
    const {
      $schema: _dialect,
      $defs,
      ...root
    } = z.toJSONSchema(schema, {
      target: 'draft-2020-12',
      io,
      unrepresentable: 'any',
      override: ({ zodSchema, jsonSchema }) => tidy(zodSchema, jsonSchema as JsonSchema, io),
    }) as JsonSchema;
    for (const [id, definition] of Object.entries(($defs ?? {}) as Record<string, JsonSchema>)) {
      // `$defs` a schema's own metadata states (a stream's event schema) are not zod's: they stay.
      if (!z.globalRegistry._idmap.has(id)) {
        if (id.startsWith('__schema')) throw new Error(`a recursive or shared schema needs an id to be a component (${JSON.stringify(root).slice(0, 120)})`);
        root.$defs = { ...(root.$defs as object), [id]: definition };
        continue;
      }
      const text = JSON.stringify(definition);
      const forms = this.forms.get(id) ?? {};
      if (forms[io] !== undefined && forms[io] !== text) throw new Error(`two different schemas are documented as ${id}`);
      this.forms.set(id, { ...forms, [io]: text });
    }
    this.roots.set(schema, { ...known, [io]: root });
    return root;
  };

  resolve = (schema: z.ZodType, io: Io): JsonSchema => {
    const root = this.roots.get(schema)?.[io];
    if (!root) throw new Error(`a schema was resolved (${io}) that was not collected`);
    return this.named(root, io);
  };

  /** Every component by name, in the order first met. */
  components(): Record<string, JsonSchema> {
    const components: Record<string, JsonSchema> = {};
    for (const [id, forms] of this.forms) {
      for (const io of ['output', 'input'] as const) {
        const text = forms[io];
        if (text !== undefined) components[this.nameOf(id, io)] ??= this.named(JSON.parse(text) as JsonSchema, io);
      }
    }
    return components;
  }

  private nameOf(id: string, io: Io): string {
    this.names ??= new Map(
      [...this.forms].map(([known, { input, output }]) => {
        const split = input !== undefined && output !== undefined && input !== output;
        if (split && this.forms.has(`${known}Input`)) throw new Error(`${known}Input is taken: ${known}'s request form needs that name`);
        return [known, { output: known, input: split ? `${known}Input` : known }];
      }),
    );
    const name = this.names.get(id)?.[io];
    if (!name) throw new Error(`no component ${id}`);
    return name;
  }

  /** `json` with its local references (`$ref`, a discriminator's mapping) pointing at the components of side `io`. */
  private named(json: JsonSchema, io: Io): JsonSchema {
    return JSON.parse(JSON.stringify(json), (_key, value: unknown) =>
      typeof value === 'string' && value.startsWith(LOCAL) ? COMPONENTS + this.nameOf(value.slice(LOCAL.length), io) : value,
    ) as JsonSchema;
  }
}

/**
 * What zod's conversion leaves that a reader or a generator would trip on:
 * a discriminated union gets OpenAPI's `discriminator`, so generators narrow
 * on it; a response object is not closed (`additionalProperties: false`),
 * as a later field must not break a client; a format's derived pattern, the
 * safe-integer bounds of `.int()` and `propertyNames: {type: string}` say
 * nothing more than the schema does.
 */
function tidy(schema: z.core.$ZodType, json: JsonSchema, io: Io): void {
  const def = schema._zod.def;
  if (def.type === 'union' && 'discriminator' in def) {
    const { discriminator, options } = def as unknown as { discriminator: string; options: readonly z.core.$ZodType[] };
    json.discriminator = { propertyName: discriminator, mapping: mappingOf(discriminator, options) };
  }
  if (def.type === 'object' && io === 'output' && !('catchall' in def && def.catchall) && json.additionalProperties === false) delete json.additionalProperties;
  if (json.format !== undefined) delete json.pattern;
  if (json.minimum === Number.MIN_SAFE_INTEGER) delete json.minimum;
  if (json.maximum === Number.MAX_SAFE_INTEGER) delete json.maximum;
  if (JSON.stringify(json.propertyNames) === '{"type":"string"}') delete json.propertyNames;
}

/** Each value of the discriminator to the component of the option that has it: options of a documented union are components. */
function mappingOf(discriminator: string, options: readonly z.core.$ZodType[]): Record<string, string> {
  return Object.fromEntries(
    options.flatMap((option) => {
      const id = z.globalRegistry.get(option)?.id;
      if (!id) throw new Error(`an option of a union on \`${discriminator}\` has no id: give it one, so the document can map to it`);
      return [...(option._zod.propValues?.[discriminator] ?? [])].map((value) => [String(value), LOCAL + id]);
    }),
  );
}
