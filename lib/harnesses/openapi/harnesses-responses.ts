import * as z from 'zod';
import { HarnessConfigSchema } from '../harness-config.js';

const HARNESS_ID = z.string().regex(/^h_/).meta({ description: '`h_` followed by an opaque part.' });

export const HarnessCreatedSchema = z
  .object({
    id: HARNESS_ID,
    name: z.string(),
    model: z.string().meta({ description: 'harness.json’s `model`, `<provider>/<model>`.' }),
    created_at: z.string().datetime(),
  })
  .meta({ id: 'HarnessCreated' });

export const HarnessListEntrySchema = z.object({ id: HARNESS_ID, name: z.string() }).meta({ id: 'HarnessListEntry' });

export const HarnessListSchema = z
  .object({
    data: z.array(HarnessListEntrySchema).meta({ description: 'Newest first.' }),
    page: z.object({ has_more: z.boolean(), next_cursor: z.string().nullable() }),
  })
  .meta({ id: 'HarnessList' });

export const HarnessSchema = z
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
  .meta({ id: 'Harness' });

export const HarnessToolSchema = z
  .object({
    name: z.string().meta({ description: 'As a model is offered it: `ask_user`, `<server name>__<tool name>`, or a harness.json `tools` entry’s name.' }),
    source: z.enum(['builtin', 'harness', 'mcp']).meta({ description: '`harness`: a `tools` entry that names no tool of the built-ins or the servers.' }),
    server: z.string().optional().meta({ description: 'The MCP server that lists it (`mcp` only).' }),
    require_approval: z.boolean(),
    available: z.boolean().meta({ description: 'Whether a run offers it to the model (false only for `harness`).' }),
    description: z.string().optional(),
    input_schema: z.record(z.string(), z.unknown()).optional().meta({ description: 'The JSON Schema of its arguments.' }),
  })
  .meta({ id: 'HarnessTool' });

export const HarnessToolListSchema = z.object({ data: z.array(HarnessToolSchema) }).meta({ id: 'HarnessToolList' });

/** What every route on one harness by id answers when it is not the caller's to see. */
export const HARNESS_NOT_FOUND = "No such harness, a malformed id, or another account's (indistinguishable, `not_found`).";
