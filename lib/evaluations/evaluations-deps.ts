import { type Harness, harnessLookup } from '#harnesses/index.js';
import { type Machine, machineLookup } from '#machines/index.js';
import { defaultTable, type TableRef } from '#platform/table/table.js';
import { type RunsService, runsService } from '#runs/index.js';
import { type AnnounceEvent, webhookNotices } from '#webhooks/index.js';
import { type EvaluationsRepo, evaluationsRepo } from './evaluations-repository.js';
import { type SendEvaluationTask, sendEvaluationTask } from './tasks.js';

/** Everything the evaluations use cases and workers need; unit tests pass fakes. */
export interface EvaluationsDeps {
  evaluations: Pick<EvaluationsRepo, 'create' | 'get' | 'whole' | 'caseAt' | 'attempt' | 'record' | 'recordOutcome' | 'runAttempts' | 'finish'>;
  harnesses: { get(accountId: string, harnessId: string): Promise<Harness | undefined> };
  machines: { get(accountId: string, machineId: string): Promise<Machine | undefined> };
  runs: RunsService;
  sendTask: SendEvaluationTask;
  /** Tells the outbound webhooks of an `evaluation.completed` event after its transaction (lib/webhooks/index.ts). */
  announce: AnnounceEvent;
  now(): Date;
}

/** The evaluations use cases' dependencies on the service's table and queues. */
export function evaluationsDeps(table: TableRef = defaultTable()): EvaluationsDeps {
  return {
    evaluations: evaluationsRepo(table),
    harnesses: harnessLookup(table),
    machines: machineLookup(table),
    runs: runsService(table),
    sendTask: sendEvaluationTask,
    announce: webhookNotices().announce,
    now: () => new Date(),
  };
}
