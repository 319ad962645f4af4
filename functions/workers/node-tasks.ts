import type { EngineDeps } from '../../lib/engine/executor.js';
import { NODE_RUNTIME } from '../../lib/engine/node-types.js';
import { engineDeps, nodeTaskHandler } from '../../lib/engine/worker-handler.js';

/** Worker for the node-tasks queue: every node type but `agent`. */
export const makeHandler = (deps: EngineDeps = engineDeps(NODE_RUNTIME)) => nodeTaskHandler(deps);

export const handler = makeHandler();
