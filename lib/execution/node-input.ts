import type { Graph } from './graph.js';
import type { Invocation } from './invocation.js';
import type { NodeExecution, WorkflowRequest } from './model.js';

/** A child's input from its parents: each completed parent's output under its node id (skipped ones are left out). */
function fromParents(parents: readonly string[], lookup: (parentId: string) => NodeExecution | undefined): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const parentId of parents) {
    const parent = lookup(parentId);
    if (parent?.status === 'completed') input[parentId] = parent.output_data ?? null;
  }
  return input;
}

/** A node's input: the request's payload for an entry node, else its parents' outputs, read unless this invocation settled them. */
export async function nodeInput(deps: Invocation, request: WorkflowRequest, graph: Graph, nodeId: string): Promise<Record<string, unknown>> {
  const parents = graph.parents.get(nodeId) ?? [];
  if (parents.length === 0) {
    return request.query !== null && !('query' in request.payload) ? { ...request.payload, query: request.query } : request.payload;
  }
  const read = new Map<string, NodeExecution | undefined>();
  for (const parentId of parents) {
    if (!deps.settled.has(parentId)) read.set(parentId, await deps.requests.getNode(request.id, parentId));
  }
  return fromParents(parents, (parentId) => deps.settled.get(parentId) ?? read.get(parentId));
}

/** What a queued task may carry of its input, in bytes of JSON: one 64 KB SQS request with room for the rest. */
export const CARRIED_INPUT_BYTES = 48 * 1024;

/**
 * A child's input when this invocation settled every one of its parents,
 * small enough to travel in the child's task, so its worker reads no parent;
 * else undefined.
 */
export function knownInput(deps: Invocation, graph: Graph, nodeId: string): Record<string, unknown> | undefined {
  const parents = graph.parents.get(nodeId) ?? [];
  if (parents.length === 0 || !parents.every((p) => deps.settled.has(p))) return undefined;
  const input = fromParents(parents, (parentId) => deps.settled.get(parentId));
  return Buffer.byteLength(JSON.stringify(input)) <= CARRIED_INPUT_BYTES ? input : undefined;
}
