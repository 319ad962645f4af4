import * as z from 'zod';
import { NODE_TYPES, RetryPolicy } from '../schemas/workflow-definition.js';

export const StoredNode = z
  .object({
    id: z.guid(),
    name: z.string(),
    type: z.enum(NODE_TYPES),
    config: z.record(z.string(), z.unknown()).meta({ description: "The node type's config with defaults applied." }),
    retry: RetryPolicy.optional(),
    timeout_ms: z.number().int().optional(),
  })
  .meta({ id: 'WorkflowVersionNode' });

export const StoredEdge = z
  .object({ from: z.guid(), to: z.guid(), when: z.string().optional() })
  .meta({ id: 'WorkflowVersionEdge', description: 'Edges are stored by node id, whichever way the request named the nodes.' });

export const WorkflowVersionSchema = z
  .object({
    id: z.uuid(),
    workflow_id: z.uuid(),
    version: z.number().int().min(1).meta({ description: '1, 2, 3… per workflow.' }),
    definition: z.object({ nodes: z.array(StoredNode), edges: z.array(StoredEdge) }),
    entry_node_ids: z.array(z.guid()).meta({ description: 'The nodes with no incoming edge, in node order.' }),
    created_at: z.string().datetime(),
  })
  .meta({ id: 'WorkflowVersion' });

export const EntryNodesResponse = z
  .object({ entry_nodes: z.array(z.object({ id: z.guid(), name: z.string(), type: z.enum(NODE_TYPES) })) })
  .meta({ id: 'WorkflowEntryNodes' });
