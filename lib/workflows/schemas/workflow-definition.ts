import * as z from 'zod';
import { boundedJson, JSON_DEPTH_RULE } from '#platform/http/common-schemas.js';

/**
 * A workflow version's `definition` (decisions.md, Workflow definitions):
 * `{nodes, edges}`, a DAG. These schemas check shape only; graph rules
 * (unique ids, edges between existing nodes, no cycles, JSONata that
 * compiles) are checked by lib/workflows/definition-validation.ts.
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

export const TransformConfig = z.strictObject({ expression: z.string().min(1).max(20_000) });
export const ConditionConfig = z.strictObject({});
export const ApprovalConfig = z.strictObject({ prompt: z.string().max(10_000).optional() });
export const AgentConfig = z.strictObject({
  model: z.string().regex(/^[a-z0-9-]+\/.+$/, { error: 'must be <provider>/<model>' }),
  system_prompt: z.string().max(100_000).default(''),
  tools: z.array(z.strictObject({ name: z.string().min(1), require_approval: z.boolean().optional() })).optional(),
});
export const HttpConfig = z.strictObject({
  method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']),
  url: z.string().min(1).max(8192),
  headers: z.record(z.string(), z.string()).optional(),
  body: z.unknown().optional(),
  timeout_ms: z.number().int().min(1).max(900_000).optional(),
});
export const WorkflowNodeConfig = z.strictObject({
  workflow_version_id: z.guid(),
  entry_node_ids: z.array(z.guid()).optional(),
});

export const NODE_CONFIG_SCHEMAS = {
  agent: AgentConfig,
  http: HttpConfig,
  transform: TransformConfig,
  condition: ConditionConfig,
  approval: ApprovalConfig,
  workflow: WorkflowNodeConfig,
} as const satisfies Record<NodeType, z.ZodType>;

export const DefinitionNode = z
  .strictObject({
    // z.guid, not z.uuid: any 8-4-4-4-12 hex id, so that hand-written ids such
    // as 00000000-0000-0000-0000-000000000001 (no RFC 9562 version) are accepted.
    id: z
      .guid()
      .optional()
      .meta({ description: 'A UUID chosen by the client, or assigned by the service. Ids are compared case-insensitively and stored lower-case.' }),
    name: z.string().min(1).max(200),
    type: z.string().meta({ description: `One of ${NODE_TYPES.join(', ')}.` }),
    config: boundedJson(z.record(z.string(), z.unknown()))
      .default({})
      .meta({ description: `What the node type takes (decisions.md, Workflow definitions). ${JSON_DEPTH_RULE}` }),
    retry: RetryPolicy.optional(),
    timeout_ms: z.number().int().min(1).max(900_000).optional(),
  })
  .meta({ id: 'WorkflowNode' });

export const DefinitionEdge = z
  .strictObject({
    from: z.string().min(1).max(200).meta({ description: 'The source node: its id, or its name (names are unique in a definition). Stored as the id.' }),
    to: z.string().min(1).max(200).meta({ description: 'The target node: its id, or its name. Stored as the id.' }),
    when: z.string().min(1).max(20_000).optional().meta({ description: 'JSONata predicate over the source node input (condition nodes).' }),
  })
  .meta({ id: 'WorkflowEdge' });

export const WorkflowDefinitionInput = z
  .strictObject({
    nodes: z.array(DefinitionNode).min(1).max(200),
    edges: z.array(DefinitionEdge).max(1000).default([]),
  })
  .meta({ id: 'WorkflowDefinition' });

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
