import { runnability } from '#harnesses/index.js';
import { type FieldError, UnavailableError, ValidationError } from '#platform/errors.js';
import { newEvaluationId } from '#platform/ids.js';
import { HarnessNotRunnableError } from '#runs/index.js';
import { isTerminal } from '#runs/model.js';
import { checkFaults, outcomeOf } from './checks.js';
import { AttemptConflictError, EvaluationIncompleteError, evaluationNotFound, fieldInvalid, pastRunning } from './errors.js';
import type { EvaluationsDeps } from './evaluations-deps.js';
import { type Attempt, CASES_MAX_BYTES, type Evaluation, type EvaluationCase, type EvaluationWhole } from './model.js';
import { settleAttempt, tryComplete } from './outcomes.js';
import type { CreateEvaluationInput, RecordAttemptInput } from './schemas.js';

/**
 * The endpoints' use cases: create, record an attempt, complete, cancel.
 * Each answers what the specification says for a call past the state it
 * needs (lib/evaluations/errors.ts, pastRunning).
 */

const notFoundField = (name: string, reason: string): FieldError => ({ name, location: 'body', reason, code: 'not_found' });

/** Case ids that repeat an earlier case's: one entry each, naming `/cases/<i>/id`. */
function duplicateIds(cases: ReadonlyArray<{ id: string }>): FieldError[] {
  const seen = new Map<string, number>();
  return cases.flatMap((c, i) => {
    const first = seen.get(c.id);
    if (first === undefined) {
      seen.set(c.id, i);
      return [];
    }
    return [{ name: `/cases/${i}/id`, location: 'body' as const, reason: `repeats the id of case ${first}; case ids are unique`, code: 'duplicate_id' }];
  });
}

/**
 * POST /v2/evaluations. Every fault of the body is one 422 (an unknown and
 * another account's harness or machine answer alike, as POST /v2/runs).
 * With `run: true` the harness must be runnable here (422
 * `harness_not_runnable`), and the task that starts its runs is sent
 * BEFORE the transaction that writes it, so that no such evaluation is ever
 * without one; a task that comes first waits for it (start-runs.ts).
 */
export async function createEvaluation(deps: EvaluationsDeps, accountId: string, body: CreateEvaluationInput): Promise<EvaluationWhole> {
  const [harness, machine] = await Promise.all([deps.harnesses.get(accountId, body.harness_id), deps.machines.get(accountId, body.machine_id)]);
  const faults: FieldError[] = [];
  if (!harness) faults.push(notFoundField('/harness_id', 'is not a harness of this account'));
  if (!machine) faults.push(notFoundField('/machine_id', 'is not a machine of this account'));
  faults.push(...duplicateIds(body.cases), ...(await checkFaults(body.cases)));
  if (Buffer.byteLength(JSON.stringify(body.cases)) > CASES_MAX_BYTES) {
    faults.push({ name: '/cases', location: 'body', reason: `must be at most ${CASES_MAX_BYTES} bytes of JSON`, code: 'too_large' });
  }
  if (faults.length > 0 || !harness || !machine) throw new ValidationError(faults);
  if (body.run) {
    const reason = runnability({ model: harness.model, instructions: harness.config.instructions, instructions_empty: harness.instructions_empty });
    if (reason) throw new HarnessNotRunnableError(reason);
  }
  const evaluation: Evaluation = {
    id: newEvaluationId(),
    account_id: accountId,
    name: body.name,
    status: 'running',
    harness_id: harness.id,
    machine_id: machine.id,
    attempts_per_case: body.attempts_per_case,
    run: body.run,
    case_ids: body.cases.map((c) => c.id),
    recorded_attempts: 0,
    ended_attempts: 0,
    results: null,
    failure: null,
    created_at: deps.now().toISOString(),
    completed_at: null,
  };
  const cases: EvaluationCase[] = body.cases.map((c, position) => ({ id: c.id, position, input: c.input, expected: c.expected ?? null }));
  if (evaluation.run) await deps.sendTask({ evaluation_id: evaluation.id, account_id: accountId });
  await deps.evaluations.create(evaluation, cases);
  return { evaluation, cases, attempts: [] };
}

/**
 * POST /v2/evaluations/{id}/attempts: fills the slot `(case_id,
 * attempt_index)` with the caller's run. 201 when it filled it; the same
 * run there already is a 200 no-op; another run is 409 `attempt_conflict`
 * (exact under concurrency: the slot is put once). A run that has ended is
 * recorded with its outcome; one that ends later gets it from its run-ended
 * notice, and one that ended between the read and the write is read again.
 * The slots of a `run: true` evaluation are the service's.
 */
export async function recordAttempt(
  deps: EvaluationsDeps,
  accountId: string,
  evaluationId: string,
  body: RecordAttemptInput,
): Promise<{ created: boolean; attempt: Attempt }> {
  const evaluation = await deps.evaluations.get(accountId, evaluationId);
  if (!evaluation) throw evaluationNotFound();
  const position = evaluation.case_ids.indexOf(body.case_id);
  if (position < 0) throw fieldInvalid('/case_id', 'is not a case of this evaluation', 'not_found');
  if (body.attempt_index >= evaluation.attempts_per_case) {
    throw fieldInvalid('/attempt_index', `must be from 0 to ${evaluation.attempts_per_case - 1} (attempts_per_case - 1)`, 'out_of_range');
  }
  if (evaluation.status !== 'running') throw pastRunning(evaluation);
  if (evaluation.run) {
    const held = await deps.evaluations.attempt(evaluation.id, position, body.attempt_index);
    if (held?.run_id === body.run_id) return { created: false, attempt: held };
    throw new AttemptConflictError(
      body.case_id,
      body.attempt_index,
      held?.run_id ?? '',
      'The service records the attempts of a `run: true` evaluation itself.',
    );
  }
  const run = await deps.runs.getOwned(accountId, body.run_id);
  if (!run) throw fieldInvalid('/run_id', 'is not a run of this account', 'not_found');
  if (run.harness_id !== evaluation.harness_id) {
    throw fieldInvalid('/run_id', `is a run of harness ${run.harness_id}, not of the evaluation's ${evaluation.harness_id}`, 'harness_mismatch');
  }
  const kase = await deps.evaluations.caseAt(evaluation.id, position);
  if (!kase) throw new Error(`Evaluation ${evaluation.id} has no case at ${position}.`);
  const at = deps.now().toISOString();
  const outcome = isTerminal(run.status) ? await outcomeOf(kase.expected, run) : undefined;
  const filled: Attempt = {
    case_id: kase.id,
    position,
    attempt_index: body.attempt_index,
    run_id: run.id,
    recorded_at: at,
    run_status: outcome?.run_status ?? null,
    passed: outcome?.passed ?? null,
    check_error: outcome?.check_error ?? null,
    ended_at: outcome ? at : null,
  };
  const result = await deps.evaluations.record(evaluation, filled);
  switch (result.kind) {
    case 'recorded': {
      if (outcome) return { created: true, attempt: filled };
      // Its end may have been told before this slot existed (and found nothing to record): look once more.
      const now = await deps.runs.getOwned(accountId, run.id);
      return { created: true, attempt: now && isTerminal(now.status) ? await settleAttempt(deps, evaluation.id, kase, filled, now) : filled };
    }
    case 'taken':
      if (result.attempt.run_id === run.id) return { created: false, attempt: result.attempt };
      throw new AttemptConflictError(body.case_id, body.attempt_index, result.attempt.run_id);
    case 'run_elsewhere':
      throw fieldInvalid('/run_id', 'is recorded for another attempt of this evaluation', 'already_recorded');
    case 'not_running':
      throw pastRunning((await deps.evaluations.get(accountId, evaluationId)) ?? evaluation);
  }
}

/** A refused move out of `running`: it left `running` first (answered as such), or it is still running and the write collided (retry). */
async function refusedMove(deps: EvaluationsDeps, accountId: string, evaluation: Evaluation): Promise<never> {
  const now = await deps.evaluations.get(accountId, evaluation.id);
  if (now && now.status !== 'running') throw pastRunning(now);
  throw new UnavailableError('The evaluation is changing; retry.');
}

/**
 * POST /v2/evaluations/{id}/complete: 409 `evaluation_incomplete` with one
 * `errors` entry per case that misses attempts (for `run: true`, attempts
 * whose run has not ended count as missing); else 200 `completed` with its
 * results.
 */
export async function completeEvaluation(deps: EvaluationsDeps, accountId: string, evaluationId: string): Promise<EvaluationWhole> {
  const whole = await deps.evaluations.whole(accountId, evaluationId);
  if (!whole) throw evaluationNotFound();
  if (whole.evaluation.status !== 'running') throw pastRunning(whole.evaluation);
  const completion = await tryComplete(deps, whole);
  if (completion.kind === 'incomplete') throw new EvaluationIncompleteError(completion.errors);
  if (completion.kind === 'refused') return refusedMove(deps, accountId, whole.evaluation);
  return completion.whole;
}

/**
 * POST /v2/evaluations/{id}/cancel: 200 `cancelled`. The runs of a `run:
 * true` evaluation that have not ended are cancelled by its worker, told
 * after the change is committed (it finds the evaluation cancelled and
 * cancels them, the last queued first, so that none starts only to be
 * cancelled).
 */
export async function cancelEvaluation(deps: EvaluationsDeps, accountId: string, evaluationId: string): Promise<EvaluationWhole> {
  const evaluation = await deps.evaluations.get(accountId, evaluationId);
  if (!evaluation) throw evaluationNotFound();
  if (evaluation.status !== 'running') throw pastRunning(evaluation);
  if (!(await deps.evaluations.finish(evaluation, { status: 'cancelled', completed_at: deps.now().toISOString() }))) {
    return refusedMove(deps, accountId, evaluation);
  }
  if (evaluation.run) await deps.sendTask({ evaluation_id: evaluation.id, account_id: accountId });
  const whole = await deps.evaluations.whole(accountId, evaluationId);
  if (!whole) throw evaluationNotFound();
  return whole;
}
