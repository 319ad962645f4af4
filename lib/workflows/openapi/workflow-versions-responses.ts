import * as z from 'zod';
import { withExample } from '#platform/http/common-schemas.js';
import { NODE_CONFIG_SCHEMAS, NODE_NAMES, NODE_OPTIONS, NODE_TYPES, NodeName, type NodeType } from '../schemas/workflow-definition.js';
import { WORKFLOW_ID_EXAMPLE } from './workflows-responses.js';

/** A node as a version stores it: its id assigned, its config with the defaults applied (the response's side of the same configs). */
const storedNodeOf = <T extends NodeType>(type: T) =>
  z
    .object({ id: z.guid(), name: NodeName, type: z.literal(type), config: NODE_CONFIG_SCHEMAS[type] as z.ZodType, ...NODE_OPTIONS })
    .meta({ id: `Stored${NODE_NAMES[type]}Node` });

const STORED_NODES = NODE_TYPES.map((type) => storedNodeOf(type));

export const StoredNode = z
  .discriminatedUnion('type', STORED_NODES as [(typeof STORED_NODES)[number], ...typeof STORED_NODES])
  .meta({ id: 'WorkflowVersionNode', description: 'A node as the version stores it, by `type`: its config with its defaults applied.' });

export const StoredEdge = z
  .object({ from: z.guid(), to: z.guid(), when: z.string().optional() })
  .meta({ id: 'WorkflowVersionEdge', description: 'Edges are stored by node id, whichever way the request named the nodes.' });

const node = (n: number) => `5b0c8e2a-7d41-4f3b-9a6e-${String(n).padStart(12, '0')}`;

export const WorkflowVersionSchema = withExample(
  z
    .object({
      id: z.uuid(),
      workflow_id: z.uuid(),
      version: z.number().int().min(1).meta({ description: '1, 2, 3… per workflow.' }),
      definition: z.object({ nodes: z.array(StoredNode), edges: z.array(StoredEdge) }),
      entry_node_ids: z.array(z.guid()).meta({ description: 'The nodes with no incoming edge, in node order.' }),
      created_at: z.string().datetime(),
    })
    .meta({ id: 'WorkflowVersion' }),
  {
    id: '9a3e5c71-2b4d-4e8f-8c1a-6d7e8f9a0b1c',
    workflow_id: WORKFLOW_ID_EXAMPLE,
    version: 2,
    definition: {
      nodes: [
        { id: node(1), name: 'classify', type: 'agent', config: { model: 'local/echo', system_prompt: 'Answer "urgent" or "normal".' } },
        { id: node(2), name: 'is urgent', type: 'condition', config: {} },
        {
          id: node(3),
          name: 'page',
          type: 'http',
          config: { method: 'POST', url: 'https://hooks.example.com/page', body: { text: '{{ $.query }}' } },
          retry: { max_attempts: 3, backoff_ms: 1000, backoff_multiplier: 2, max_backoff_ms: 60_000, jitter: true },
        },
      ],
      edges: [
        { from: node(1), to: node(2) },
        { from: node(2), to: node(3), when: '$contains($string($), "urgent")' },
      ],
    },
    entry_node_ids: [node(1)],
    created_at: '2026-01-31T09:00:00.000Z',
  },
);

export const EntryNodesResponse = withExample(
  z.object({ entry_nodes: z.array(z.object({ id: z.guid(), name: z.string(), type: z.enum(NODE_TYPES) })) }).meta({ id: 'WorkflowEntryNodes' }),
  { entry_nodes: [{ id: node(1), name: 'classify', type: 'agent' }] },
);
