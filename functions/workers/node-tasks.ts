import type { EngineDeps } from '#execution/executor.js';
import { NODE_RUNTIME } from '#execution/node-types.js';
import { engineDeps, nodeTaskHandler } from '#execution/worker-handler.js';

/** Worker for the node-tasks queue: every node type but `agent`. */
export const makeHandler = (deps: EngineDeps = engineDeps(NODE_RUNTIME)) => nodeTaskHandler(deps);

export const handler = makeHandler();
