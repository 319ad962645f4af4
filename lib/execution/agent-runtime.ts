import type { WorkerRuntime } from './node-runner.js';
import { agentNode } from './nodes/agent.js';

/** The agent worker's runtime: model calls only (no JSONata: see WorkerRuntime). */
export const AGENT_RUNTIME: WorkerRuntime = { runners: { agent: agentNode } };
