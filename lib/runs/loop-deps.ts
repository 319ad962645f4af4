import { harnessLookup } from '#harnesses/index.js';
import { interactionsService } from '#interactions/index.js';
import { callTool, listTools } from '#mcp/client.js';
import { defaultTable, type TableRef } from '#platform/table/table.js';
import type { LoopDeps } from './agent-loop.js';
import { runMoney } from './run-money.js';
import { endRunDeps } from './runs-deps.js';

/** How long a run's interaction can be answered (24 h; RUN_INTERACTION_TIMEOUT_SECONDS overrides it). */
export const DEFAULT_INTERACTION_TIMEOUT_SECONDS = 24 * 60 * 60;

export function interactionTimeoutSeconds(env: NodeJS.ProcessEnv = process.env): number {
  const value = Number(env.RUN_INTERACTION_TIMEOUT_SECONDS);
  return Number.isFinite(value) && value > 0 ? value : DEFAULT_INTERACTION_TIMEOUT_SECONDS;
}

/** Everything the run worker's agent loop needs, on the service's table and queues. */
export function loopDeps(table: TableRef = defaultTable()): LoopDeps {
  const harnesses = harnessLookup(table);
  return {
    ...endRunDeps(table),
    interactions: interactionsService(table),
    harnessFile: (harnessId, path) => harnesses.file(harnessId, path),
    mcp: { listTools, callTool },
    interactionTimeoutSeconds: interactionTimeoutSeconds(),
    money: runMoney(table),
    now: () => new Date(),
  };
}
