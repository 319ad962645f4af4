import * as z from 'zod';
import { withExample } from '#platform/http/common-schemas.js';
import { v2Page } from '#platform/openapi/pagination.js';
import { HarnessConfigSchema } from '../harness-config.js';
import { ASK_USER } from '../harness-tools.js';

const HARNESS_ID = z.string().regex(/^h_/).meta({ description: '`h_` followed by an opaque part.' });

const HARNESS = { id: 'h_0mwvm5z02Rk7VdJ2nW4yTq8cB', name: 'Support assistant', model: 'local/echo', created_at: '2026-01-31T08:55:00.000Z' };
const ASK_USER_TOOL = { ...ASK_USER, source: 'builtin', require_approval: false, available: true } as const;
const HARNESS_JSON = { model: 'local/echo', instructions: 'instructions.md', tools: [{ name: 'ask_user', require_approval: false }], max_turns: 10 };

export const HarnessCreatedSchema = withExample(
  z
    .object({
      id: HARNESS_ID,
      name: z.string(),
      model: z.string().meta({ description: 'harness.json’s `model`, `<provider>/<model>`.' }),
      created_at: z.string().datetime(),
    })
    .meta({ id: 'HarnessCreated' }),
  HARNESS,
);

export const HarnessListEntrySchema = withExample(z.object({ id: HARNESS_ID, name: z.string() }).meta({ id: 'HarnessListEntry' }), {
  id: HARNESS.id,
  name: HARNESS.name,
});

export const HarnessListSchema = v2Page(HarnessListEntrySchema, { id: 'HarnessList', itemsDescription: 'Newest first.' });

export const HarnessSchema = withExample(
  z
    .object({
      id: HARNESS_ID,
      name: z.string(),
      model: z.string(),
      created_at: z.string().datetime(),
      config: HarnessConfigSchema.meta({ description: 'harness.json as parsed, with its defaults.' }),
      files: z
        .array(z.object({ path: z.string(), content: z.string() }))
        .meta({ description: 'Every file, harness.json included, in the order they were sent.' }),
    })
    .meta({ id: 'Harness' }),
  {
    ...HARNESS,
    config: { ...HARNESS_JSON, mcp_servers: [] },
    files: [
      { path: 'harness.json', content: JSON.stringify(HARNESS_JSON) },
      { path: 'instructions.md', content: 'You are a friendly support assistant. Ask the user when a ticket is unclear.' },
    ],
  },
);

export const HarnessToolSchema = withExample(
  z
    .object({
      name: z.string().meta({ description: 'As a model is offered it: `ask_user`, `<server name>__<tool name>`, or a harness.json `tools` entry’s name.' }),
      source: z.enum(['builtin', 'harness', 'mcp']).meta({ description: '`harness`: a `tools` entry that names no tool of the built-ins or the servers.' }),
      server: z.string().optional().meta({ description: 'The MCP server that lists it (`mcp` only).' }),
      require_approval: z.boolean(),
      available: z.boolean().meta({ description: 'Whether a run offers it to the model (false only for `harness`).' }),
      description: z.string().optional(),
      input_schema: z.record(z.string(), z.unknown()).optional().meta({ description: 'The JSON Schema of its arguments.' }),
    })
    .meta({ id: 'HarnessTool' }),
  ASK_USER_TOOL,
);

export const HarnessToolListSchema = withExample(z.object({ data: z.array(HarnessToolSchema) }).meta({ id: 'HarnessToolList' }), {
  data: [
    ASK_USER_TOOL,
    {
      name: 'tickets__close',
      source: 'mcp',
      server: 'tickets',
      require_approval: true,
      available: true,
      description: 'Close a ticket.',
      input_schema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    },
  ],
});

/** What every route on one harness by id answers when it is not the caller's to see. */
export const HARNESS_NOT_FOUND = "No such harness, a malformed id, or another account's (indistinguishable, `not_found`).";
