import { AGENT_RUNTIME } from '../../lib/engine/agent-runtime.js';
import type { EngineDeps } from '../../lib/engine/executor.js';
import { engineDeps, nodeTaskHandler } from '../../lib/engine/worker-handler.js';

/** Worker for the agent-tasks queue: agent nodes (model calls), with the model SDKs and without JSONata. */
export const makeHandler = (deps: EngineDeps = engineDeps(AGENT_RUNTIME)) => nodeTaskHandler(deps);

export const handler = makeHandler();
