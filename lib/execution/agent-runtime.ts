import type { WorkerRuntime } from './node-runner.js';
import { edgeTaken, PURE_RUNNERS } from './node-types.js';
import { agentNode } from './nodes/agent.js';

/**
 * The agent worker's runtime: model calls, and the pure node types with
 * JSONata (loaded on the first expression), so what follows an agent node
 * (a condition and its `when` edges, a transform) runs in the same
 * invocation instead of another queue hop.
 */
export const AGENT_RUNTIME: WorkerRuntime = { runners: { agent: agentNode, ...PURE_RUNNERS }, edgeTaken };
