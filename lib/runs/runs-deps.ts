import { harnessLookup } from '#harnesses/index.js';
import { interactionsService } from '#interactions/index.js';
import { machineLookup } from '#machines/index.js';
import { defaultTable, type TableRef } from '#platform/table/table.js';
import { webhookNotices } from '#webhooks/index.js';
import { chatLookup } from '#workflows/index.js';
import type { CreateRunDeps } from './create-run.js';
import type { EndDeps } from './end-run.js';
import { type Runs, runs } from './run-changes.js';
import { notifyRunEnded } from './run-ended.js';
import { wakeRun } from './wake.js';

/**
 * The dependencies of the runs use cases that do not play the agent loop
 * (creating, cancelling, failing a dead-lettered run), on the service's
 * table and queues. The loop's own (models, MCP) are in loop-deps.ts, so the
 * handlers and features that only create or end runs do not load them.
 */

/** What ends a run and hands its machine on. */
export function endRunDeps(table: TableRef = defaultTable()): EndDeps & { runs: Runs } {
  return {
    runs: runs(table),
    machines: machineLookup(table),
    interactions: interactionsService(table),
    tableName: table.tableName,
    wake: wakeRun,
    runEnded: notifyRunEnded,
    announce: webhookNotices().announce,
  };
}

/** What creates a run (and, for an interrupting one, ends the run it replaces). */
export function createRunDeps(table: TableRef = defaultTable()): CreateRunDeps & { runs: Runs } {
  return { ...endRunDeps(table), harnesses: harnessLookup(table), chats: chatLookup(table) };
}
