import jsonata from 'jsonata';
import { NodeFailure } from './node-failure.js';
import type { NodeExecution, WorkflowRequest } from '../data/workflow-requests.js';
import { agentNode } from './nodes/agent.js';
import type { NodeType, WorkflowNode } from '../schemas/workflow-definition.js';
import { httpNode } from './nodes/http.js';

export { NodeFailure } from './node-failure.js';

export interface NodeRunContext {
  node: WorkflowNode;
  input: Record<string, unknown>;
  /** Aborted when the node's timeout passes; runners doing I/O must honour it. */
  signal: AbortSignal;
  request: WorkflowRequest;
  execution: NodeExecution;
}

type NodeRunner = (context: NodeRunContext) => Promise<unknown>;

const compiled = new Map<string, ReturnType<typeof jsonata>>();
function expression(source: string): ReturnType<typeof jsonata> {
  let expr = compiled.get(source);
  if (!expr) {
    expr = jsonata(source);
    compiled.set(source, expr);
  }
  return expr;
}

export async function evaluateJsonata(source: string, input: unknown): Promise<unknown> {
  try {
    return await expression(source).evaluate(input);
  } catch (error) {
    // An expression that compiles but fails on this input fails the same way every time.
    throw new NodeFailure('expression_error', `JSONata evaluation failed: ${(error as Error).message}`, false);
  }
}

/** A `when` predicate: JSONata truthiness, with an undefined result as false. */
export async function edgeTaken(when: string | undefined, input: unknown): Promise<boolean> {
  if (when === undefined) return true;
  const result = await evaluateJsonata(when, input);
  return Array.isArray(result) ? result.length > 0 : Boolean(result);
}

/**
 * Runners of the node types that compute an output. `approval` and
 * `workflow` wait on something outside the node and are handled by the
 * executor itself. What may run at all is lib/engine/capabilities.ts.
 */
export const NODE_RUNNERS: Partial<Record<NodeType, NodeRunner>> = {
  transform: async ({ node, input }) => evaluateJsonata(String(node.config.expression), input),
  // A condition passes its input on; its outgoing edges' `when` decide the branches.
  condition: async ({ input }) => input,
  http: httpNode,
  agent: agentNode,
};
