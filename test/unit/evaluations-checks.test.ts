import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { checkFaults, outcomeOf } from '#evaluations/checks.js';
import type { Attempt, EvaluationCase } from '#evaluations/model.js';
import { resultsOf } from '#evaluations/results.js';
import { evaluationRunId } from '#evaluations/run-ids.js';
import { RUN_ID } from '#runs/model.js';
import { runOf } from '../helpers/evaluations-fakes.js';

describe('checks', () => {
  test('exact, contains and regex test the output; a case without a check has no verdict', async () => {
    const run = runOf();
    assert.deepEqual(await outcomeOf({ type: 'exact', value: 'hello there world' }, run), { run_status: 'completed', passed: true, check_error: null });
    assert.equal((await outcomeOf({ type: 'exact', value: 'hello there' }, run)).passed, false);
    assert.equal((await outcomeOf({ type: 'contains', value: 'there' }, run)).passed, true);
    assert.equal((await outcomeOf({ type: 'contains', value: 'bye' }, run)).passed, false);
    assert.equal((await outcomeOf({ type: 'regex', value: '^hello\\s' }, run)).passed, true);
    assert.equal((await outcomeOf({ type: 'regex', value: '^world' }, run)).passed, false);
    assert.deepEqual(await outcomeOf(null, run), { run_status: 'completed', passed: null, check_error: null });
    assert.equal((await outcomeOf({ type: 'contains', value: 'x' }, runOf({ output: null }))).passed, false, 'no output is the empty text');
  });

  test('a JSONata predicate gets {input, output, run} and passes when truthy; one that throws fails with its error', async () => {
    const run = runOf({ input: { topic: 'greeting' } });
    const check = (value: string) => outcomeOf({ type: 'jsonata', value }, run);
    assert.equal((await check('input.topic = "greeting" and $contains(output, "there") and run.usage.output_tokens = 3')).passed, true);
    assert.equal((await check('run.status = "failed"')).passed, false);
    assert.equal((await check('run.harness')).passed, false, 'the run as the API shows it: no internals');
    assert.equal((await check('[]')).passed, false, 'an empty sequence is false');
    const broken = await check('$undefinedFunction(output)');
    assert.equal(broken.passed, false);
    assert.match(broken.check_error ?? '', /JSONata evaluation failed/);
  });

  test('a run that failed or was cancelled fails its check; without a check it only counts', async () => {
    assert.deepEqual(await outcomeOf({ type: 'contains', value: 'x' }, runOf({ status: 'failed', output: null })), {
      run_status: 'failed',
      passed: false,
      check_error: 'the run failed',
    });
    assert.deepEqual(await outcomeOf({ type: 'exact', value: 'x' }, runOf({ status: 'cancelled' })), {
      run_status: 'cancelled',
      passed: false,
      check_error: 'the run was cancelled',
    });
    assert.deepEqual(await outcomeOf(null, runOf({ status: 'failed' })), { run_status: 'failed', passed: null, check_error: null });
  });

  test('checks that do not compile are named, one entry each', async () => {
    const faults = await checkFaults([
      { expected: { type: 'regex', value: '(' } },
      {},
      { expected: { type: 'jsonata', value: 'output = ' } },
      { expected: { type: 'jsonata', value: 'output = "x"' } },
      { expected: { type: 'exact', value: '(' } },
    ]);
    assert.deepEqual(
      faults.map((f) => [f.name, f.code, f.location]),
      [
        ['/cases/0/expected/value', 'invalid_pattern', 'body'],
        ['/cases/2/expected/value', 'invalid_expression', 'body'],
      ],
    );
    assert.match(faults[1]!.reason, /not a valid JSONata expression/);
  });
});

describe('results', () => {
  const cases: EvaluationCase[] = [
    { id: 'a', position: 0, input: 'x', expected: { type: 'exact', value: 'x' } },
    { id: 'b', position: 1, input: 'y', expected: null },
    { id: 'c', position: 2, input: 'z', expected: { type: 'contains', value: 'z' } },
  ];
  const attempt = (position: number, index: number, overrides: Partial<Attempt>): Attempt => ({
    case_id: cases[position]!.id,
    position,
    attempt_index: index,
    run_id: `run_${position}_${index}`,
    recorded_at: 't',
    run_status: 'completed',
    passed: null,
    check_error: null,
    ended_at: 't',
    ...overrides,
  });

  test('per case: attempts, run statuses and, with a check, passed and its rate; the overall rate is over checked cases only', () => {
    const results = resultsOf(
      cases,
      [
        attempt(0, 0, { passed: true }),
        attempt(0, 1, { passed: false, run_status: 'failed' }),
        attempt(0, 2, { passed: true }),
        attempt(1, 0, {}),
        attempt(1, 1, { run_status: null, ended_at: null }),
        attempt(2, 0, { passed: false }),
      ],
      new Map([['run_1_1', 'running']]),
    );
    assert.deepEqual(results, {
      per_case: [
        { case_id: 'a', attempts: 3, passed: 2, pass_rate: 2 / 3, run_statuses: { completed: 2, failed: 1 } },
        { case_id: 'b', attempts: 2, passed: null, pass_rate: null, run_statuses: { completed: 1, running: 1 } },
        { case_id: 'c', attempts: 1, passed: 0, pass_rate: 0, run_statuses: { completed: 1 } },
      ],
      pass_rate: 0.5,
    });
  });

  test('without any check there is no pass rate, only counts', () => {
    const plain = cases.map((c) => ({ ...c, expected: null }));
    const results = resultsOf(plain, [attempt(0, 0, {})], new Map());
    assert.equal(results.pass_rate, null);
    assert.deepEqual(results.per_case[0], { case_id: 'a', attempts: 1, passed: null, pass_rate: null, run_statuses: { completed: 1 } });
  });

  test('rates are exact fractions, per case and overall, so a client multiplying back gets the counts', () => {
    const results = resultsOf(
      cases,
      [
        attempt(0, 0, { passed: true }),
        attempt(0, 1, { passed: false }),
        attempt(0, 2, { passed: false }),
        attempt(2, 0, { passed: true }),
        attempt(2, 1, { passed: true }),
        attempt(2, 2, { passed: true }),
      ],
      new Map(),
    );
    assert.equal(results.per_case[0]!.pass_rate, 1 / 3);
    assert.equal(results.pass_rate, 4 / 6);
    assert.equal(results.per_case[0]!.pass_rate! * 3, 1);
  });
});

describe('the run ids of run: true', () => {
  const evaluation = { id: 'eval_000000000AAAAAAAAAAAAAAAA', created_at: '2026-03-01T00:00:00.000Z', attempts_per_case: 3 };

  test('are run ids, the same for one slot whoever derives them, different for every slot, and sort in slot order', () => {
    const ids = [0, 1, 2].flatMap((position) => [0, 1, 2].map((index) => evaluationRunId(evaluation, position, index)));
    for (const id of ids) assert.match(id, RUN_ID);
    assert.equal(evaluationRunId(evaluation, 1, 2), ids[5]);
    assert.equal(new Set(ids).size, 9);
    assert.deepEqual([...ids].sort(), ids);
    assert.notEqual(evaluationRunId({ ...evaluation, id: 'eval_000000000BAAAAAAAAAAAAAAA' }, 0, 0), ids[0]);
  });
});
