import * as z from 'zod';
import { boundedJson, JSON_DEPTH_RULE } from '#platform/http/common-schemas.js';

/**
 * A workflow version's `definition` (decisions.md, Workflow definitions):
 * `{nodes, edges}`, a DAG. These schemas check shape only; the configs and
 * the graph rules (unique ids, edges between existing nodes, no cycles,
 * JSONata that compiles) are checked by lib/workflows/definition-validation.ts.
 */
export const NODE_TYPES = ['agent', 'http', 'transform', 'condition', 'approval', 'workflow'] as const;
export type NodeType = (typeof NODE_TYPES)[number];

export const RetryPolicy = z
  .strictObject({
    max_attempts: z.number().int().min(1).max(20),
    backoff_ms: z.number().int().min(0).max(3_600_000).default(1000),
    backoff_multiplier: z.number().min(1).max(10).default(2),
    max_backoff_ms: z.number().int().min(0).max(3_600_000).default(60_000),
    jitter: z.boolean().default(true),
    /** Which failures retry: error codes of lib/engine (e.g. `timeout`, `http_5xx`); default all retryable ones. */
    retry_on: z.array(z.string().min(1)).optional(),
  })
  .meta({ id: 'RetryPolicy' });

export const TransformConfig = z
  .strictObject({ expression: z.string().min(1).max(20_000).meta({ description: 'JSONata over the node’s input; its result is the node’s `output_data`.' }) })
  .meta({ id: 'TransformConfig' });
export const ConditionConfig = z
  .strictObject({})
  .meta({ id: 'ConditionConfig', description: 'Nothing: the `when` of its outgoing edges, JSONata predicates over its input, choose the branches.' });
export const ApprovalConfig = z
  .strictObject({ prompt: z.string().max(10_000).optional().meta({ description: 'What the person is asked.' }) })
  .meta({ id: 'ApprovalConfig' });
export const AgentConfig = z
  .strictObject({
    model: z
      .string()
      .regex(/^[a-z0-9-]+\/.+$/, { error: 'must be <provider>/<model>' })
      .meta({ description: '`<provider>/<model>`, e.g. `local/echo`.' }),
    system_prompt: z.string().max(100_000).default(''),
    tools: z.array(z.strictObject({ name: z.string().min(1), require_approval: z.boolean().optional() })).optional(),
  })
  .meta({ id: 'AgentConfig' });
export const HttpConfig = z
  .strictObject({
    method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']),
    url: z
      .string()
      .min(1)
      .max(8192)
      .meta({ description: 'An `https:` URL; `{{ }}` templates (JSONata over the input) may fill it, the header values and the body’s strings.' }),
    headers: z.record(z.string(), z.string()).optional(),
    body: z.unknown().optional(),
    timeout_ms: z.number().int().min(1).max(900_000).optional(),
  })
  .meta({ id: 'HttpConfig' });
export const WorkflowNodeConfig = z
  .strictObject({
    workflow_version_id: z.guid().meta({ description: 'A version of the account’s: it runs as a child request.' }),
    entry_node_ids: z.array(z.guid()).optional().meta({ description: 'Where the child starts; its version’s entry nodes by default.' }),
  })
  .meta({ id: 'SubworkflowConfig' });

export const NODE_CONFIG_SCHEMAS = {
  agent: AgentConfig,
  http: HttpConfig,
  transform: TransformConfig,
  condition: ConditionConfig,
  approval: ApprovalConfig,
  workflow: WorkflowNodeConfig,
} as const satisfies Record<NodeType, z.ZodType>;

/** Each node type's schema in the document: `<Name>Node` as a client sends it, `Stored<Name>Node` as a version shows it. */
export const NODE_NAMES = {
  agent: 'Agent',
  http: 'Http',
  transform: 'Transform',
  condition: 'Condition',
  approval: 'Approval',
  workflow: 'Subworkflow',
} as const satisfies Record<NodeType, string>;

export const NodeName = z.string().min(1).max(200).meta({ description: 'Unique in the definition; an edge may name the node by it.' });

/** What every node may have besides its id, name, type and config. */
export const NODE_OPTIONS = { retry: RetryPolicy.optional(), timeout_ms: z.number().int().min(1).max(900_000).optional() };

// z.guid, not z.uuid: any 8-4-4-4-12 hex id, so that hand-written ids such
// as 00000000-0000-0000-0000-000000000001 (no RFC 9562 version) are accepted.
const NodeId = z
  .guid()
  .optional()
  .meta({ description: 'A UUID chosen by the client, or assigned by the service. Ids are compared case-insensitively and stored lower-case.' });

/**
 * A node as the parser takes it: any `type` and any `config` object, which
 * checkDefinition then checks against its type's schema, so that every
 * fault of a definition is one entry of one 422.
 */
export const DefinitionNode = z.strictObject({
  id: NodeId,
  name: NodeName,
  type: z.string(),
  config: boundedJson(z.record(z.string(), z.unknown())).default({}),
  ...NODE_OPTIONS,
});

export const DefinitionEdge = z
  .strictObject({
    from: z.string().min(1).max(200).meta({ description: 'The source node: its id, or its name (names are unique in a definition). Stored as the id.' }),
    to: z.string().min(1).max(200).meta({ description: 'The target node: its id, or its name. Stored as the id.' }),
    when: z.string().min(1).max(20_000).optional().meta({ description: 'JSONata predicate over the source node input (condition nodes).' }),
  })
  .meta({ id: 'WorkflowEdge' });

/** A definition of `node`s: the parser's, or the document's. */
const definitionOf = <N extends z.ZodType>(node: N) =>
  z.strictObject({ nodes: z.array(node).min(1).max(200), edges: z.array(DefinitionEdge).max(1000).default([]) });

export const WorkflowDefinitionInput = definitionOf(DefinitionNode);

/**
 * The definition as the document states it: each node type its own schema,
 * `type` a constant and `config` its type's, so a misspelt type or a
 * missing config field is a client's type error. The parser takes the
 * lenient form above; these are built from the same fields and configs, so
 * the two cannot drift. A config every field of which may be left out may
 * be left out itself (`{}`).
 */
export function documentedDefinition(): z.ZodType {
  const nodeOf = <T extends NodeType>(type: T) => {
    const config: z.ZodType = NODE_CONFIG_SCHEMAS[type];
    return z
      .strictObject({
        id: NodeId,
        name: NodeName,
        type: z.literal(type),
        config: config.safeParse({}).success ? config.optional() : config,
        ...NODE_OPTIONS,
      })
      .meta({ id: `${NODE_NAMES[type]}Node` });
  };
  const nodes = NODE_TYPES.map((type) => nodeOf(type));
  const WorkflowNode = z
    .discriminatedUnion('type', nodes as [(typeof nodes)[number], ...typeof nodes])
    .meta({ id: 'WorkflowNode', description: `A node of the graph, by \`type\`: ${NODE_TYPES.join(', ')}. \`config\`: ${JSON_DEPTH_RULE}` });
  return definitionOf(WorkflowNode).meta({
    id: 'WorkflowDefinition',
    description: 'A directed acyclic graph. Entry nodes are the nodes with no incoming edge.',
  });
}

/** A stored, validated definition: every node has its id and a typed config. */
export interface WorkflowNode {
  id: string;
  name: string;
  type: NodeType;
  config: Record<string, unknown>;
  retry?: z.output<typeof RetryPolicy>;
  timeout_ms?: number;
}
export interface WorkflowEdge {
  from: string;
  to: string;
  when?: string;
}
export interface WorkflowDefinition {
  nodes: WorkflowNode[];
  edges: WorkflowEdge[];
}
