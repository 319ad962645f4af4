import type { NodeType, WorkflowNode } from '#workflows/index.js';
import type { NodeExecution, WorkflowRequest } from './model.js';

export interface NodeRunContext {
  node: WorkflowNode;
  input: Record<string, unknown>;
  /** Aborted when the node's timeout passes; runners doing I/O must honour it. */
  signal: AbortSignal;
  request: WorkflowRequest;
  execution: NodeExecution;
}

export type NodeRunner = (context: NodeRunContext) => Promise<unknown>;

/**
 * What a worker can do: the node types it runs, and how it evaluates the
 * `when` predicates of edges. Each queue's worker bundles its own runners:
 * the agent worker carries the model SDKs, the node worker the HTTP client;
 * both run the pure types.
 */
export interface WorkerRuntime {
  runners: Partial<Record<NodeType, NodeRunner>>;
  edgeTaken: (when: string | undefined, input: unknown) => Promise<boolean>;
}
