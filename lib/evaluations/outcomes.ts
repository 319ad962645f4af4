import type { FieldError } from '#platform/errors.js';
import { nameBasedUuid } from '#platform/uuid.js';
import type { RunEnded } from '#runs/index.js';
import { isTerminal, type Run, type RunStatus } from '#runs/model.js';
import { outcomeOf } from './checks.js';
import type { EvaluationsDeps } from './evaluations-deps.js';
import { type Attempt, attemptCount, type Evaluation, type EvaluationCase, type EvaluationWhole, evaluationView } from './model.js';
import { resultsOf } from './results.js';

/** Runs read at once when a completion looks at the attempts whose end it has not heard of. */
const READ_CHUNK = 25;

/**
 * Records what an ended run made of an attempt (once: a second recorder
 * finds it recorded), and answers the attempt as it stands.
 */
export async function settleAttempt(deps: EvaluationsDeps, evaluationId: string, kase: EvaluationCase, attempt: Attempt, run: Run): Promise<Attempt> {
  const outcome = await outcomeOf(kase.expected, run);
  const at = deps.now().toISOString();
  if (await deps.evaluations.recordOutcome(evaluationId, kase.position, attempt.attempt_index, run.id, outcome, at))
    return { ...attempt, ...outcome, ended_at: at };
  return (await deps.evaluations.attempt(evaluationId, kase.position, attempt.attempt_index)) ?? attempt;
}

/** The `evaluation.completed` event of the account's event record (decisions.md, Webhooks); its id is derived from the evaluation's, so it is one event whoever writes it and however often. */
export const completedEvent = (evaluation: Evaluation) => ({
  id: nameBasedUuid(`evaluation.completed:${evaluation.id}`),
  type: 'evaluation.completed',
  data: evaluationView(evaluation),
});

/** One `errors` entry per case that misses attempts: not recorded, or (for `run: true`) whose run has not ended. */
function missingOf(whole: EvaluationWhole, attempts: readonly Attempt[]): FieldError[] {
  const { evaluation, cases } = whole;
  return cases.flatMap((c) => {
    const missing: number[] = [];
    for (let index = 0; index < evaluation.attempts_per_case; index++) {
      const attempt = attempts.find((a) => a.position === c.position && a.attempt_index === index);
      if (!attempt || (evaluation.run && attempt.ended_at === null)) missing.push(index);
    }
    if (missing.length === 0) return [];
    const ready = `${evaluation.attempts_per_case - missing.length} of ${evaluation.attempts_per_case} ${evaluation.run ? 'ended' : 'recorded'}`;
    // The case is named by its id; the evaluation it belongs to is the path's.
    return [{ name: c.id, location: 'path' as const, reason: `misses attempt_index ${missing.join(', ')} (${ready})`, code: 'attempts_missing' }];
  });
}

export type Completion = { kind: 'completed'; whole: EvaluationWhole } | { kind: 'incomplete'; errors: FieldError[] } | { kind: 'refused' };

/**
 * Completes a running evaluation if no attempt is missing. An attempt whose
 * run's end it has not heard of has its run read: an ended run's outcome is
 * recorded now (its notice may still be on its way); a run still going
 * counts with its status now. The results and the `evaluation.completed`
 * event are written in the one transaction that moves it out of `running`,
 * so of any number of completers (the caller, the ends of its last runs)
 * exactly one completes it: the others are `refused`.
 */
export async function tryComplete(deps: EvaluationsDeps, whole: EvaluationWhole): Promise<Completion> {
  const { evaluation, cases } = whole;
  const statusNow = new Map<string, RunStatus>();
  const attempts = [...whole.attempts];
  const open = attempts.map((a, i) => [a, i] as const).filter(([a]) => a.ended_at === null);
  for (let from = 0; from < open.length; from += READ_CHUNK) {
    await Promise.all(
      open.slice(from, from + READ_CHUNK).map(async ([attempt, i]) => {
        const run = await deps.runs.getOwned(evaluation.account_id, attempt.run_id);
        if (!run) return;
        statusNow.set(run.id, run.status);
        if (isTerminal(run.status)) attempts[i] = await settleAttempt(deps, evaluation.id, cases[attempt.position]!, attempt, run);
      }),
    );
  }
  const errors = missingOf(whole, attempts);
  if (errors.length > 0) return { kind: 'incomplete', errors };
  const at = deps.now().toISOString();
  const results = resultsOf(cases, attempts, statusNow);
  const completed: Evaluation = {
    ...evaluation,
    status: 'completed',
    results,
    completed_at: at,
    recorded_attempts: attempts.length,
    ended_attempts: attempts.filter((a) => a.ended_at !== null).length,
  };
  const event = completedEvent(completed);
  if (!(await deps.evaluations.finish(evaluation, { status: 'completed', completed_at: at, results }, event))) return { kind: 'refused' };
  await deps.announce(evaluation.account_id, { id: event.id, type: event.type, created_at: at });
  return { kind: 'completed', whole: { evaluation: completed, cases, attempts } };
}

/** A `run: true` evaluation whose every run has ended completes (it is the service's to complete). */
export async function completeIfDone(deps: EvaluationsDeps, accountId: string, evaluationId: string): Promise<void> {
  const evaluation = await deps.evaluations.get(accountId, evaluationId);
  // A repeated notice of its last run announces its event again: the completer may have died before announcing it.
  if (evaluation?.run && evaluation.status === 'completed' && evaluation.completed_at) {
    const event = completedEvent(evaluation);
    return deps.announce(accountId, { id: event.id, type: event.type, created_at: evaluation.completed_at });
  }
  if (!evaluation?.run || evaluation.status !== 'running' || evaluation.ended_attempts < attemptCount(evaluation)) return;
  const whole = await deps.evaluations.whole(accountId, evaluationId);
  if (whole) await tryComplete(deps, whole);
}

/**
 * The run-ended notice (lib/runs/run-ended.ts): records the outcome of
 * every attempt the run fills, and completes a `run: true` evaluation whose
 * last run it was. Idempotent: an outcome is recorded once, and the
 * completion happens once, so a notice delivered twice changes nothing.
 */
export async function recordRunEnded(deps: EvaluationsDeps, notice: RunEnded): Promise<void> {
  const refs = await deps.evaluations.runAttempts(notice.run_id);
  if (refs.length === 0) return;
  const run = await deps.runs.getOwned(notice.account_id, notice.run_id);
  if (!run || !isTerminal(run.status)) return;
  for (const ref of refs) {
    if (ref.account_id !== run.account_id) continue;
    const [kase, attempt] = await Promise.all([
      deps.evaluations.caseAt(ref.evaluation_id, ref.position),
      deps.evaluations.attempt(ref.evaluation_id, ref.position, ref.attempt_index),
    ]);
    if (!kase || attempt?.run_id !== run.id) continue;
    if (attempt.ended_at === null) await settleAttempt(deps, ref.evaluation_id, kase, attempt, run);
    // Also when it was recorded already: a completer that died after recording the last outcome left this to do.
    await completeIfDone(deps, ref.account_id, ref.evaluation_id);
  }
}
