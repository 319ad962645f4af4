import { DomainError } from '#platform/errors.js';
import { isTerminal } from '#runs/model.js';
import type { EvaluationsDeps } from './evaluations-deps.js';
import type { EvaluationFailure, EvaluationWhole } from './model.js';
import { evaluationRunId } from './run-ids.js';
import type { EvaluationTask } from './tasks.js';

/** Times a worker looks again, a second apart, for an evaluation whose creation had not committed when its task came. */
const ABSENT_RETRIES = 10;
/** Pauses (ms) of the first looks again, within the invocation, for an evaluation not found yet. */
export const ABSENT_PAUSES_MS = [20, 40, 80];
/** With less than this left of the invocation, the work continues in a new message rather than start another run. */
export const CONTINUE_MARGIN_MS = 30_000;

/**
 * What an evaluation-runs task does (lib/evaluations/queues.ts), by the
 * evaluation's status as read now, so that any copy of it at any time is
 * harmless.
 *
 * Running: each slot in order (case by case, attempt by attempt) is filled
 * with the id of its run, derived from the slot (run-ids.ts), THEN the run
 * is created under that id, queued on the machine behind the runs before
 * it. Filled first, the slot is there before the run can end, so the run's
 * end always finds it; a worker that dies between the two leaves a filled
 * slot whose run the next copy creates (creating it again finds it). A
 * cancel that commits meanwhile refuses the next fill; then, and after the
 * last run, the status is read once more and the runs are cancelled if it
 * left `running`, so no run is left going that a cancel's own sweep could
 * not see.
 *
 * Cancelled or failed: its runs that have not ended are cancelled.
 */
export async function moveEvaluation(deps: EvaluationsDeps, task: EvaluationTask, ctx: { remainingMs(): number }): Promise<void> {
  let whole = await deps.evaluations.whole(task.account_id, task.evaluation_id);
  // The task is sent just before the creation's transaction, which usually commits within milliseconds: a first
  // look again in this invocation costs less than a new message and a second.
  for (const ms of task.absent ? [] : ABSENT_PAUSES_MS) {
    if (whole) break;
    await new Promise((resolve) => setTimeout(resolve, ms));
    whole = await deps.evaluations.whole(task.account_id, task.evaluation_id);
  }
  if (!whole) {
    const absent = (task.absent ?? 0) + 1;
    if (absent <= ABSENT_RETRIES) await deps.sendTask({ evaluation_id: task.evaluation_id, account_id: task.account_id, absent }, { delaySeconds: 1 });
    return;
  }
  const { evaluation } = whole;
  if (!evaluation.run) return;
  if (evaluation.status !== 'running') return cancelRuns(deps, whole);
  const filled = new Map(whole.attempts.map((a) => [`${a.position}/${a.attempt_index}`, a]));
  for (const kase of whole.cases) {
    for (let index = 0; index < evaluation.attempts_per_case; index++) {
      const held = filled.get(`${kase.position}/${index}`);
      if (held?.ended_at) continue;
      if (ctx.remainingMs() < CONTINUE_MARGIN_MS) {
        await deps.sendTask({ evaluation_id: evaluation.id, account_id: evaluation.account_id });
        return;
      }
      const runId = evaluationRunId(evaluation, kase.position, index);
      if (!held) {
        const result = await deps.evaluations.record(evaluation, {
          case_id: kase.id,
          position: kase.position,
          attempt_index: index,
          run_id: runId,
          recorded_at: deps.now().toISOString(),
          run_status: null,
          passed: null,
          check_error: null,
          ended_at: null,
        });
        if (result.kind === 'not_running') return sweepIfLeft(deps, whole);
        // 'taken' by this very id is a concurrent copy of this task: the run is created below all the same.
        if (result.kind !== 'recorded' && !(result.kind === 'taken' && result.attempt.run_id === runId)) {
          throw new Error(`Slot ${kase.position}/${index} of ${evaluation.id} holds another run than its own (${result.kind}).`);
        }
      }
      try {
        await deps.runs.create(
          evaluation.account_id,
          {
            harness_id: evaluation.harness_id,
            machine_id: evaluation.machine_id,
            input: kase.input,
            metadata: { evaluation_id: evaluation.id, case_id: kase.id, attempt_index: index },
          },
          runId,
        );
      } catch (error) {
        // The machine was deleted, or the harness cannot run here any more: no run of this evaluation can start.
        if (error instanceof DomainError && error.kind === 'invalid') return failEvaluation(deps, whole, { code: 'runs_not_started', message: error.detail });
        // Not now (the machine changing too fast, a limit of runs at once): the rest goes on in a message that comes when it says.
        if (error instanceof DomainError && error.options.retryAfterSeconds !== undefined) {
          await deps.sendTask({ evaluation_id: evaluation.id, account_id: evaluation.account_id }, { delaySeconds: error.options.retryAfterSeconds });
          return;
        }
        throw error;
      }
    }
  }
  await sweepIfLeft(deps, whole);
}

/** Reads the status once more; an evaluation that left `running` has its runs cancelled. */
async function sweepIfLeft(deps: EvaluationsDeps, whole: EvaluationWhole): Promise<void> {
  const now = await deps.evaluations.get(whole.evaluation.account_id, whole.evaluation.id);
  if (now && now.status !== 'running') await cancelRuns(deps, (await deps.evaluations.whole(now.account_id, now.id)) ?? whole);
}

/**
 * Cancels the evaluation's runs that have not ended, the last slot first:
 * runs queue on the machine in slot order, so none is handed the machine
 * only to be cancelled next.
 */
export async function cancelRuns(deps: EvaluationsDeps, whole: EvaluationWhole): Promise<void> {
  const { evaluation } = whole;
  for (const attempt of [...whole.attempts].reverse()) {
    if (attempt.ended_at) continue;
    const run = await deps.runs.getOwned(evaluation.account_id, attempt.run_id);
    if (run && !isTerminal(run.status)) await deps.runs.cancel(run);
  }
}

/** A `run: true` evaluation whose runs cannot be started fails (once), and the runs it started are cancelled. */
export async function failEvaluation(deps: EvaluationsDeps, whole: EvaluationWhole, failure: EvaluationFailure): Promise<void> {
  await deps.evaluations.finish(whole.evaluation, { status: 'failed', completed_at: deps.now().toISOString(), failure });
  await sweepIfLeft(deps, whole);
}

/** A task that failed on every delivery: a running evaluation fails with `internal_error`, and its runs are cancelled. */
export async function failDeadLetteredEvaluation(deps: EvaluationsDeps, task: EvaluationTask): Promise<void> {
  const whole = await deps.evaluations.whole(task.account_id, task.evaluation_id);
  if (!whole?.evaluation.run) return;
  if (whole.evaluation.status !== 'running') return cancelRuns(deps, whole);
  await failEvaluation(deps, whole, { code: 'internal_error', message: 'The runs of the evaluation could not be started after repeated attempts.' });
}
