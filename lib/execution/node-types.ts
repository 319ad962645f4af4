import { edgeTaken, evaluateJsonata } from '#expressions/jsonata.js';
import type { WorkerRuntime } from './node-runner.js';

export { edgeTaken } from '#expressions/jsonata.js';

/**
 * The node worker's runtime: the node types that compute an output in
 * process, and JSONata for edge predicates. `approval` and `workflow` wait on
 * something outside the node and are handled by the executor itself; `agent`
 * runs on its own queue (lib/execution/agent-runtime.ts). What may run at all is
 * lib/execution/capabilities.ts.
 */
/** The pure node types (placement.ts), which every worker runs, so a pure child runs inline wherever its parent settled. */
export const PURE_RUNNERS: WorkerRuntime['runners'] = {
  transform: async ({ node, input }) => evaluateJsonata(String(node.config.expression), input),
  // A condition passes its input on; its outgoing edges' `when` decide the branches.
  condition: async ({ input }) => input,
};

export const NODE_RUNTIME: WorkerRuntime = {
  runners: {
    ...PURE_RUNNERS,
    // Loaded with the first http node: the HTTP client stack (node:http, DNS, the
    // SSRF guard) is not needed by transforms and conditions, most of this worker's work.
    http: async (context) => (await import('./nodes/http.js')).httpNode(context),
  },
  edgeTaken,
};
