import { harnessLookup } from '#harnesses/index.js';
import { interactionsService } from '#interactions/index.js';
import { machineLookup } from '#machines/index.js';
import { callTool, listTools } from '#mcp/client.js';
import { defaultTable, type TableRef } from '#platform/table/table.js';
import { chatLookup } from '#workflows/index.js';
import type { LoopDeps } from './agent-loop.js';
import type { CreateRunDeps } from './create-run.js';
import { runsRepo } from './runs-repository.js';
import { wakeRun } from './wake.js';

/** How long a run's interaction can be answered (24 h; RUN_INTERACTION_TIMEOUT_SECONDS overrides it). */
export const DEFAULT_INTERACTION_TIMEOUT_SECONDS = 24 * 60 * 60;

export function interactionTimeoutSeconds(env: NodeJS.ProcessEnv = process.env): number {
  const value = Number(env.RUN_INTERACTION_TIMEOUT_SECONDS);
  return Number.isFinite(value) && value > 0 ? value : DEFAULT_INTERACTION_TIMEOUT_SECONDS;
}

/** Everything the runs use cases and the run worker need, on the service's table and queues. */
export function runsDeps(table: TableRef = defaultTable()): CreateRunDeps & LoopDeps {
  const harnesses = harnessLookup(table);
  return {
    runs: runsRepo(table),
    harnesses,
    machines: machineLookup(table),
    chats: chatLookup(table),
    interactions: interactionsService(table),
    harnessFile: (harnessId, path) => harnesses.file(harnessId, path),
    mcp: { listTools, callTool },
    interactionTimeoutSeconds: interactionTimeoutSeconds(),
    tableName: table.tableName,
    wake: wakeRun,
    now: () => new Date(),
  };
}
