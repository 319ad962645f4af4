import * as z from 'zod';
import { jsonPointer } from '#platform/http/parse.js';
import { HarnessLimitsSchema } from './run-limits.js';

/**
 * `harness.json`, the configuration at the root of a harness's files
 * (decisions.md, "Harnesses and machines"):
 * `{"model": "<provider>/<model>", "instructions": "<path of a file in the set>",
 * "tools": [{"name", "require_approval"?}], "mcp_servers": [{"name", "url"}], "max_turns": N}`.
 *
 * `model` and `instructions` are required; `tools` and `mcp_servers` default
 * to none, `max_turns` to 10 (1 to 50); `limits` (./run-limits.ts), the
 * defaults of its runs' limits, to none. Fields it does not have are refused,
 * so that a misspelt `require_approval` cannot silently leave a tool ungated.
 * Whether the model's provider is configured is not checked here: that is
 * `runnability` (./runnability.ts), at run creation.
 */

export const MAX_TURNS = { min: 1, max: 50, default: 10 } as const;
/** At most this many servers (each is called when the harness's tools are listed) and tool entries. */
export const MAX_MCP_SERVERS = 16;
export const MAX_TOOL_ENTRIES = 256;

/** `<provider>/<model>`: a provider of lower-case letters, digits, `.`, `_`, `-`; a model of up to 200 visible characters (it may hold `/` and `:`). */
export const MODEL_NAME = /^[a-z0-9][a-z0-9._-]{0,31}\/[\x21-\x7e]{1,200}$/;
export const SERVER_NAME = /^[a-zA-Z0-9_-]{1,32}$/;

const httpUrl = z
  .string()
  .max(2048)
  .refine(
    (text) => {
      try {
        const url = new URL(text);
        return url.protocol === 'https:' || url.protocol === 'http:';
      } catch {
        return false;
      }
    },
    { error: 'must be an absolute https: URL' },
  );

export const HarnessToolEntry = z
  .strictObject({
    name: z.string().min(1).max(128).meta({ description: '`ask_user`, or an MCP tool as `<server name>__<tool name>`.' }),
    require_approval: z.boolean().default(false).meta({ description: 'Each call waits for an approval interaction.' }),
  })
  .meta({ id: 'HarnessToolEntry' });

export const HarnessMcpServer = z
  .strictObject({
    name: z.string().regex(SERVER_NAME, { error: 'must be 1 to 32 of a-z, A-Z, 0-9, _ and -' }),
    url: httpUrl.meta({ description: 'Its streamable HTTP endpoint, called through the outbound address guard.' }),
  })
  .meta({ id: 'HarnessMcpServer' });

export const HarnessConfigSchema = z
  .strictObject({
    model: z.string().regex(MODEL_NAME, { error: 'must be "<provider>/<model>", e.g. "local/echo"' }),
    instructions: z.string().min(1).meta({ description: 'The path of the file, in this set, that is the system prompt.' }),
    tools: z.array(HarnessToolEntry).max(MAX_TOOL_ENTRIES).default([]),
    mcp_servers: z.array(HarnessMcpServer).max(MAX_MCP_SERVERS).default([]),
    max_turns: z
      .number()
      .int({ error: `must be an integer from ${MAX_TURNS.min} to ${MAX_TURNS.max}` })
      .min(MAX_TURNS.min, { error: `must be an integer from ${MAX_TURNS.min} to ${MAX_TURNS.max}` })
      .max(MAX_TURNS.max, { error: `must be an integer from ${MAX_TURNS.min} to ${MAX_TURNS.max}` })
      .default(MAX_TURNS.default),
    limits: HarnessLimitsSchema.optional().meta({ description: 'The limits of its runs, unless a run sets its own (field by field, the run’s value wins).' }),
  })
  .meta({ id: 'HarnessConfig' });

export type HarnessConfig = z.output<typeof HarnessConfigSchema>;

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let current = root;
  for (const segment of path) current = current !== null && typeof current === 'object' ? (current as Record<PropertyKey, unknown>)[segment] : undefined;
  return current;
}

/** Duplicate names in a list, each once, in order of first repetition. */
function duplicates(names: string[]): string[] {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const name of names) (seen.has(name) ? repeated : seen).add(name);
  return [...repeated];
}

/**
 * The configuration in `text`, or what is wrong with it: each problem a
 * phrase naming the field by JSON Pointer (`/max_turns must be ...`).
 * `paths` are the paths of the set, which `instructions` must name.
 */
export function parseHarnessConfig(
  text: string,
  paths: ReadonlySet<string>,
): { config: HarnessConfig; problems: [] } | { config?: undefined; problems: string[] } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { problems: ['it is not valid JSON'] };
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return { problems: ['it must be a JSON object'] };
  const parsed = HarnessConfigSchema.safeParse(raw);
  if (!parsed.success) {
    return {
      problems: parsed.error.issues.flatMap((issue) => {
        // Each unknown field by its own pointer: a name may hold `/` or `~`, which a list of bare names would leave ambiguous.
        if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => `${jsonPointer([...issue.path, key])} is not a field of harness.json`);
        const missing = issue.code === 'invalid_type' && valueAt(raw, issue.path) === undefined;
        return [`${jsonPointer(issue.path)} ${missing ? 'is required' : issue.message}`];
      }),
    };
  }
  const config = parsed.data;
  const problems: string[] = [];
  if (!paths.has(config.instructions)) problems.push(`/instructions names ${JSON.stringify(config.instructions)}, which is not a file of the set`);
  for (const name of duplicates(config.mcp_servers.map((s) => s.name))) problems.push(`/mcp_servers names the server ${JSON.stringify(name)} more than once`);
  for (const name of duplicates(config.tools.map((t) => t.name))) problems.push(`/tools names the tool ${JSON.stringify(name)} more than once`);
  return problems.length > 0 ? { problems } : { config, problems: [] };
}
