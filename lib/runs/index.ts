/**
 * What other features may use of runs: wake a run by id (an answered
 * interaction resumes it).
 */
import type { TableRef } from '#platform/table/table.js';
import { runsRepo } from './runs-repository.js';
import { wakeRun } from './wake.js';

export const runWaker =
  (table?: TableRef) =>
  async (runId: string): Promise<void> => {
    const run = await runsRepo(table).get(runId);
    if (run) await wakeRun(run);
  };
