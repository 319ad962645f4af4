import { AGENT_RUNTIME } from '#execution/agent-runtime.js';
import type { EngineDeps } from '#execution/executor.js';
import { engineDeps, nodeTaskHandler } from '#execution/worker-handler.js';

/** Worker for the agent-tasks queue: agent nodes (model calls), and the pure nodes that follow them. */
export const makeHandler = (deps: EngineDeps = engineDeps(AGENT_RUNTIME)) => nodeTaskHandler(deps);

export const handler = makeHandler();
