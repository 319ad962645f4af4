import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { cancelEvaluation, completeEvaluation, createEvaluation, recordAttempt } from '#evaluations/evaluations.js';
import { recordRunEnded } from '#evaluations/outcomes.js';
import { evaluationRunId } from '#evaluations/run-ids.js';
import type { CreateEvaluationInput } from '#evaluations/schemas.js';
import { CONTINUE_MARGIN_MS, failDeadLetteredEvaluation, moveEvaluation } from '#evaluations/start-runs.js';
import { DomainError, NotFoundError, UnavailableError, ValidationError } from '#platform/errors.js';
import { STATUS_OF } from '#platform/http/problem.js';
import { HarnessNotRunnableError } from '#runs/index.js';
import { fakeWorld, harnessOf, machineGone, runOf } from '../helpers/evaluations-fakes.js';

const H = harnessOf().id;
const M = 'mch_000000000AAAAAAAAAAAAAAAA';
const body = (overrides: Partial<CreateEvaluationInput> = {}): CreateEvaluationInput => ({
  name: 'e',
  harness_id: H,
  machine_id: M,
  attempts_per_case: 2,
  run: false,
  cases: [
    { id: 'a', input: 'hello', expected: { type: 'exact', value: 'hello' } },
    { id: 'b', input: 'world' },
  ],
  ...overrides,
});
const code = (expected: string, status?: number) => (error: unknown) =>
  error instanceof DomainError && error.code === expected && (status === undefined || STATUS_OF[error.kind] === status);
const names = (error: unknown) => (error as ValidationError).options.errors?.map((e) => e.name);
const context = (remainingMs = 300_000) => ({ remainingMs: () => remainingMs });

describe('createEvaluation', () => {
  test('every fault of the body is one 422: unknown harness and machine, repeated case ids, checks that do not compile', async () => {
    const { deps } = fakeWorld();
    const error = await createEvaluation(
      deps,
      'acc',
      body({
        harness_id: 'h_000000000BAAAAAAAAAAAAAAA',
        machine_id: 'mch_000000000BAAAAAAAAAAAAAAA',
        cases: [
          { id: 'a', input: 'x', expected: { type: 'regex', value: '[' } },
          { id: 'b', input: 'y', expected: { type: 'jsonata', value: '(' } },
          { id: 'a', input: 'z' },
        ],
      }),
    ).catch((e: unknown) => e);
    assert.ok(error instanceof ValidationError);
    assert.deepEqual(names(error), ['/harness_id', '/machine_id', '/cases/2/id', '/cases/0/expected/value', '/cases/1/expected/value']);
    const foreign = await createEvaluation(deps, 'someone-else', body()).catch((e: unknown) => e);
    assert.deepEqual(names(foreign), ['/harness_id', '/machine_id'], 'another account’s harness and machine are unknown to it');
  });

  test('201 running with its cases; with run: true the harness must be runnable, and its task goes out before it is written', async () => {
    const { deps, evaluations, tasks, harnesses } = fakeWorld();
    const created = await createEvaluation(deps, 'acc', body());
    assert.equal(created.evaluation.status, 'running');
    assert.deepEqual(created.evaluation.case_ids, ['a', 'b']);
    assert.deepEqual(created.cases[1], { id: 'b', position: 1, input: 'world', expected: null });
    assert.equal(tasks.length, 0, 'an evaluation without run starts nothing');

    deps.sendTask = async (task) => {
      assert.equal(evaluations.heads.has(task.evaluation_id), false, 'sent before the transaction');
      tasks.push({ task });
    };
    const running = await createEvaluation(deps, 'acc', body({ run: true }));
    assert.deepEqual(tasks, [{ task: { evaluation_id: running.evaluation.id, account_id: 'acc' } }]);
    assert.ok(evaluations.heads.has(running.evaluation.id));

    harnesses.set(H, harnessOf({ instructions_empty: true }));
    await assert.rejects(createEvaluation(deps, 'acc', body({ run: true })), (e: unknown) => e instanceof HarnessNotRunnableError && STATUS_OF[e.kind] === 422);
    assert.ok(await createEvaluation(deps, 'acc', body()), 'without run, the caller’s runs are checked instead');
  });
});

describe('recordAttempt', () => {
  async function world() {
    const w = fakeWorld();
    const { evaluation } = await createEvaluation(w.deps, 'acc', body());
    const run = (id: string, overrides = {}) => w.runs.add(runOf({ id, account_id: 'acc', harness_id: H, output: 'hello', ...overrides }));
    return { ...w, id: evaluation.id, run };
  }
  const slot = (runId: string, overrides = {}) => ({ case_id: 'a', attempt_index: 0, run_id: runId, ...overrides });

  test('an ended run is recorded with its outcome (201); the same run again is 200; another run is 409 attempt_conflict', async () => {
    const { deps, id, run } = await world();
    run('run_000000000AAAAAAAAAAAAAAA1');
    run('run_000000000AAAAAAAAAAAAAAA2');
    const first = await recordAttempt(deps, 'acc', id, slot('run_000000000AAAAAAAAAAAAAAA1'));
    assert.equal(first.created, true);
    assert.deepEqual([first.attempt.run_status, first.attempt.passed, first.attempt.ended_at !== null], ['completed', true, true]);
    const again = await recordAttempt(deps, 'acc', id, slot('run_000000000AAAAAAAAAAAAAAA1'));
    assert.deepEqual(again, { created: false, attempt: first.attempt });
    await assert.rejects(recordAttempt(deps, 'acc', id, slot('run_000000000AAAAAAAAAAAAAAA2')), code('attempt_conflict', 409));
    const whole = await deps.evaluations.whole('acc', id);
    assert.deepEqual([whole?.evaluation.recorded_attempts, whole?.evaluation.ended_attempts], [1, 1]);
  });

  test('unknown evaluation 404; unknown case, out-of-range index, a run not the account’s, of another harness or in another slot 422 naming it', async () => {
    const { deps, id, run } = await world();
    run('run_000000000AAAAAAAAAAAAAAA1');
    run('run_000000000AAAAAAAAAAAAAAA3', { harness_id: 'h_000000000BAAAAAAAAAAAAAAA' });
    run('run_000000000AAAAAAAAAAAAAAA4', { account_id: 'other' });
    await assert.rejects(recordAttempt(deps, 'other', id, slot('run_000000000AAAAAAAAAAAAAAA1')), NotFoundError);
    const refusal = async (input: ReturnType<typeof slot>) => {
      const error = await recordAttempt(deps, 'acc', id, input).catch((e: unknown) => e);
      assert.ok(error instanceof ValidationError, String(error));
      return [names(error)?.[0], error.options.errors?.[0]?.code];
    };
    assert.deepEqual(await refusal(slot('run_000000000AAAAAAAAAAAAAAA1', { case_id: 'zz' })), ['/case_id', 'not_found']);
    assert.deepEqual(await refusal(slot('run_000000000AAAAAAAAAAAAAAA1', { attempt_index: 2 })), ['/attempt_index', 'out_of_range']);
    assert.deepEqual(await refusal(slot('run_000000000AAAAAAAAAAAAAAA9')), ['/run_id', 'not_found']);
    assert.deepEqual(await refusal(slot('run_000000000AAAAAAAAAAAAAAA4')), ['/run_id', 'not_found']);
    assert.deepEqual(await refusal(slot('run_000000000AAAAAAAAAAAAAAA3')), ['/run_id', 'harness_mismatch']);
    await recordAttempt(deps, 'acc', id, slot('run_000000000AAAAAAAAAAAAAAA1'));
    assert.deepEqual(await refusal(slot('run_000000000AAAAAAAAAAAAAAA1', { case_id: 'b' })), ['/run_id', 'already_recorded']);
  });

  test('a run that ends between the read and the write is read again and gets its outcome', async () => {
    const { deps, id, run, runs } = await world();
    run('run_000000000AAAAAAAAAAAAAAA1', { status: 'running', output: null });
    const getOwned = runs.getOwned.bind(runs);
    let reads = 0;
    deps.runs = {
      ...deps.runs,
      getOwned: async (a, r) => (++reads === 2 ? runs.end(r, 'completed', 'nope') : getOwned(a, r)),
      create: runs.create.bind(runs),
      cancel: runs.cancel.bind(runs),
    };
    const recorded = await recordAttempt(deps, 'acc', id, slot('run_000000000AAAAAAAAAAAAAAA1'));
    assert.deepEqual([recorded.attempt.run_status, recorded.attempt.passed], ['completed', false]);
    assert.equal((await deps.evaluations.get('acc', id))?.ended_attempts, 1);
  });

  test('a call past running is 409: evaluation_completed, evaluation_cancelled, evaluation_not_running', async () => {
    const { deps, id, run, evaluations } = await world();
    run('run_000000000AAAAAAAAAAAAAAA1');
    for (const [status, expected] of [
      ['completed', 'evaluation_completed'],
      ['cancelled', 'evaluation_cancelled'],
      ['failed', 'evaluation_not_running'],
    ] as const) {
      evaluations.heads.get(id)!.status = status;
      await assert.rejects(recordAttempt(deps, 'acc', id, slot('run_000000000AAAAAAAAAAAAAAA1')), code(expected, 409));
      await assert.rejects(completeEvaluation(deps, 'acc', id), code(expected, 409));
      await assert.rejects(cancelEvaluation(deps, 'acc', id), code(expected, 409));
    }
  });

  test('the slots of a run: true evaluation are the service’s', async () => {
    const { deps, runs } = fakeWorld();
    const { evaluation } = await createEvaluation(deps, 'acc', body({ run: true, attempts_per_case: 1 }));
    await moveEvaluation(deps, { evaluation_id: evaluation.id, account_id: 'acc' }, context());
    runs.add(runOf({ id: 'run_000000000AAAAAAAAAAAAAAA1', account_id: 'acc', harness_id: H }));
    await assert.rejects(recordAttempt(deps, 'acc', evaluation.id, slot('run_000000000AAAAAAAAAAAAAAA1')), code('attempt_conflict', 409));
    const own = evaluationRunId(evaluation, 0, 0);
    assert.equal((await recordAttempt(deps, 'acc', evaluation.id, slot(own))).created, false);
  });
});

describe('completeEvaluation and cancelEvaluation', () => {
  test('incomplete: one errors entry per case that misses attempts; then completed with results and one event', async () => {
    const { deps, runs, evaluations } = fakeWorld();
    const { evaluation } = await createEvaluation(deps, 'acc', body());
    const add = (n: number, output: string) => runs.add(runOf({ id: `run_000000000AAAAAAAAAAAAAAA${n}`, account_id: 'acc', harness_id: H, output }));
    add(1, 'hello');
    add(2, 'nope');
    add(3, 'w');
    add(4, 'w');
    await recordAttempt(deps, 'acc', evaluation.id, { case_id: 'a', attempt_index: 1, run_id: 'run_000000000AAAAAAAAAAAAAAA1' });
    const incomplete = await completeEvaluation(deps, 'acc', evaluation.id).catch((e: unknown) => e);
    assert.ok(code('evaluation_incomplete', 409)(incomplete));
    assert.deepEqual((incomplete as DomainError).options.errors, [
      { name: 'a', location: 'path', reason: 'misses attempt_index 0 (1 of 2 recorded)', code: 'attempts_missing' },
      { name: 'b', location: 'path', reason: 'misses attempt_index 0, 1 (0 of 2 recorded)', code: 'attempts_missing' },
    ]);
    await recordAttempt(deps, 'acc', evaluation.id, { case_id: 'a', attempt_index: 0, run_id: 'run_000000000AAAAAAAAAAAAAAA2' });
    await recordAttempt(deps, 'acc', evaluation.id, { case_id: 'b', attempt_index: 0, run_id: 'run_000000000AAAAAAAAAAAAAAA3' });
    runs.add(runOf({ id: 'run_000000000AAAAAAAAAAAAAAA4', account_id: 'acc', harness_id: H, status: 'running', output: null }));
    await recordAttempt(deps, 'acc', evaluation.id, { case_id: 'b', attempt_index: 1, run_id: 'run_000000000AAAAAAAAAAAAAAA4' });

    const completed = await completeEvaluation(deps, 'acc', evaluation.id);
    assert.equal(completed.evaluation.status, 'completed');
    assert.deepEqual(completed.evaluation.results, {
      per_case: [
        { case_id: 'a', attempts: 2, passed: 1, pass_rate: 0.5, run_statuses: { completed: 2 } },
        { case_id: 'b', attempts: 2, passed: null, pass_rate: null, run_statuses: { completed: 1, running: 1 } },
      ],
      pass_rate: 0.5,
    });
    assert.equal(evaluations.events.length, 1);
    assert.equal(evaluations.events[0]?.type, 'evaluation.completed');
    assert.deepEqual(evaluations.events[0]?.data.results, completed.evaluation.results);
  });

  test('a completion that loses to a concurrent cancel answers what won', async () => {
    const { deps, runs, evaluations } = fakeWorld();
    const { evaluation } = await createEvaluation(deps, 'acc', body({ attempts_per_case: 1, cases: [{ id: 'a', input: 'x' }] }));
    runs.add(runOf({ id: 'run_000000000AAAAAAAAAAAAAAA1', account_id: 'acc', harness_id: H }));
    await recordAttempt(deps, 'acc', evaluation.id, { case_id: 'a', attempt_index: 0, run_id: 'run_000000000AAAAAAAAAAAAAAA1' });
    evaluations.beforeFinish = (head) => {
      head.status = 'cancelled';
    };
    await assert.rejects(completeEvaluation(deps, 'acc', evaluation.id), code('evaluation_cancelled', 409));
    assert.equal(evaluations.events.length, 0);
  });

  test('cancel: 200 cancelled; only a run: true evaluation tells its worker (which cancels its runs)', async () => {
    const { deps, tasks } = fakeWorld();
    const manual = await createEvaluation(deps, 'acc', body());
    assert.equal((await cancelEvaluation(deps, 'acc', manual.evaluation.id)).evaluation.status, 'cancelled');
    assert.equal(tasks.length, 0);
    const auto = await createEvaluation(deps, 'acc', body({ run: true }));
    tasks.length = 0;
    await cancelEvaluation(deps, 'acc', auto.evaluation.id);
    assert.deepEqual(
      tasks.map((t) => t.task),
      [{ evaluation_id: auto.evaluation.id, account_id: 'acc' }],
    );
    await assert.rejects(cancelEvaluation(deps, 'other', auto.evaluation.id), NotFoundError);
  });
});

describe('the runs of a run: true evaluation (moveEvaluation)', () => {
  async function world(overrides: Partial<CreateEvaluationInput> = {}) {
    const w = fakeWorld();
    const { evaluation } = await createEvaluation(w.deps, 'acc', body({ run: true, ...overrides }));
    const task = { evaluation_id: evaluation.id, account_id: 'acc' };
    const slotIds = [0, 1].flatMap((p) => [0, 1].map((i) => evaluationRunId(evaluation, p, i)));
    return { ...w, evaluation, task, slotIds };
  }

  test('each slot is filled with its derived run id before its run is created, in slot order, with the case’s input', async () => {
    const { deps, runs, evaluations, evaluation, task, slotIds } = await world();
    runs.beforeCreate = (id) => {
      assert.ok(
        [...evaluations.slots.values()].some((a) => a.run_id === id),
        `slot of ${id} filled before the run exists`,
      );
    };
    await moveEvaluation(deps, task, context());
    assert.deepEqual(runs.created, slotIds);
    const first = runs.runs.get(slotIds[0]!)!;
    assert.deepEqual(
      [first.input, first.harness_id, first.machine_id, first.metadata],
      ['hello', H, M, { evaluation_id: evaluation.id, case_id: 'a', attempt_index: 0 }],
    );
    assert.equal(runs.runs.get(slotIds[2]!)!.input, 'world');
    assert.equal((await deps.evaluations.get('acc', evaluation.id))?.recorded_attempts, 4);
  });

  test('a worker that dies mid-way, its redelivery and a concurrent copy create every run exactly once', async () => {
    const { deps, runs, task, slotIds } = await world();
    runs.beforeCreate = (_id, count) => {
      if (count === 2) throw new Error('the worker died');
    };
    await assert.rejects(moveEvaluation(deps, task, context()), /the worker died/);
    assert.equal(runs.created.length, 2);
    runs.beforeCreate = undefined;
    await Promise.all([moveEvaluation(deps, task, context()), moveEvaluation(deps, task, context())]);
    await moveEvaluation(deps, task, context());
    assert.deepEqual(runs.created, slotIds);
  });

  test('near the end of its invocation it continues in a new message', async () => {
    const { deps, runs, task, tasks } = await world();
    tasks.length = 0;
    await moveEvaluation(deps, task, context(CONTINUE_MARGIN_MS - 1));
    assert.equal(runs.created.length, 0);
    assert.deepEqual(
      tasks.map((t) => t.task),
      [task],
    );
  });

  test('a creation refused for now (retry after) goes on in a message that comes then', async () => {
    const { deps, runs, task, tasks, slotIds } = await world();
    tasks.length = 0;
    runs.beforeCreate = (_id, count) => {
      if (count === 1) throw new UnavailableError('busy', 7);
    };
    await moveEvaluation(deps, task, context());
    assert.deepEqual(tasks, [{ task, delaySeconds: 7 }]);
    runs.beforeCreate = undefined;
    await moveEvaluation(deps, task, context());
    assert.deepEqual(runs.created, slotIds);
  });

  test('a task that comes before its evaluation is written looks again a second later, ten times', async () => {
    const { deps, tasks } = fakeWorld();
    let task = { evaluation_id: 'eval_000000000AAAAAAAAAAAAAAAA', account_id: 'acc', absent: undefined as number | undefined };
    for (let i = 1; i <= 11; i++) {
      tasks.length = 0;
      await moveEvaluation(deps, task, context());
      if (i <= 10) {
        assert.deepEqual(tasks, [{ task: { ...task, absent: i }, delaySeconds: 1 }]);
        task = tasks[0]!.task as typeof task;
      } else assert.equal(tasks.length, 0, 'then it gives up');
    }
  });

  test('a cancel mid-way stops the creations, and the runs it started are cancelled, the last first', async () => {
    const { deps, runs, evaluations, evaluation, task, slotIds } = await world();
    runs.beforeCreate = (_id, count) => {
      if (count === 2) evaluations.heads.get(evaluation.id)!.status = 'cancelled';
    };
    await moveEvaluation(deps, task, context());
    assert.deepEqual(runs.created, slotIds.slice(0, 3), 'the slot filled before the cancel gets its run, and no slot after');
    assert.deepEqual(runs.cancelled, [...slotIds.slice(0, 3)].reverse());
  });

  test('a machine that is gone fails the evaluation (runs_not_started) and cancels the runs it started; the dead letter fails one with internal_error', async () => {
    const { deps, runs, evaluation, task, slotIds } = await world();
    runs.beforeCreate = (_id, count) => {
      if (count === 1) throw machineGone();
    };
    await moveEvaluation(deps, task, context());
    const failed = await deps.evaluations.get('acc', evaluation.id);
    assert.equal(failed?.status, 'failed');
    assert.equal(failed?.failure?.code, 'runs_not_started');
    assert.deepEqual(runs.cancelled, [slotIds[0]]);

    const other = await world();
    await failDeadLetteredEvaluation(other.deps, other.task);
    assert.deepEqual((await other.deps.evaluations.get('acc', other.evaluation.id))?.failure?.code, 'internal_error');
  });
});

describe('recordRunEnded', () => {
  test('records each outcome once, and completes a run: true evaluation once, with one event, when its last runs end at once', async () => {
    const { deps, runs, evaluations, evaluation, task, slotIds } = await (async () => {
      const w = fakeWorld();
      const { evaluation } = await createEvaluation(w.deps, 'acc', body({ run: true }));
      return {
        ...w,
        evaluation,
        task: { evaluation_id: evaluation.id, account_id: 'acc' },
        slotIds: [0, 1].flatMap((p) => [0, 1].map((i) => evaluationRunId(evaluation, p, i))),
      };
    })();
    await moveEvaluation(deps, task, context());
    const notice = (id: string) => ({ run_id: id, account_id: 'acc', status: 'completed' as const });
    runs.end(slotIds[0]!, 'completed', 'hello');
    runs.end(slotIds[1]!, 'failed');
    await recordRunEnded(deps, notice(slotIds[0]!));
    await recordRunEnded(deps, notice(slotIds[0]!));
    await recordRunEnded(deps, notice(slotIds[1]!));
    assert.equal((await deps.evaluations.get('acc', evaluation.id))?.ended_attempts, 2, 'a notice twice is one outcome');
    assert.equal((await deps.evaluations.get('acc', evaluation.id))?.status, 'running');
    runs.end(slotIds[2]!, 'completed', 'world');
    runs.end(slotIds[3]!, 'completed', 'world');
    await Promise.all([recordRunEnded(deps, notice(slotIds[2]!)), recordRunEnded(deps, notice(slotIds[3]!)), recordRunEnded(deps, notice(slotIds[3]!))]);
    const done = await deps.evaluations.get('acc', evaluation.id);
    assert.equal(done?.status, 'completed');
    assert.deepEqual(done?.results, {
      per_case: [
        { case_id: 'a', attempts: 2, passed: 1, pass_rate: 0.5, run_statuses: { completed: 1, failed: 1 } },
        { case_id: 'b', attempts: 2, passed: null, pass_rate: null, run_statuses: { completed: 2 } },
      ],
      pass_rate: 0.5,
    });
    assert.equal(evaluations.events.length, 1);
    await recordRunEnded(deps, notice(slotIds[3]!));
    assert.equal(evaluations.events.length, 1, 'a late copy changes nothing');
  });

  test('a notice of a run no evaluation recorded reads nothing more', async () => {
    const { deps, runs } = fakeWorld();
    let reads = 0;
    deps.runs = {
      ...runs,
      getOwned: async () => {
        reads++;
        return undefined;
      },
      create: runs.create.bind(runs),
      cancel: runs.cancel.bind(runs),
    };
    await recordRunEnded(deps, { run_id: 'run_000000000AAAAAAAAAAAAAAA1', account_id: 'acc', status: 'completed' });
    assert.equal(reads, 0);
  });
});
