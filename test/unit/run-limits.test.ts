import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { HarnessFilesInvalidError } from '#harnesses/errors.js';
import { validateHarnessFiles } from '#harnesses/harness-files.js';
import { UnknownFieldError, ValidationError } from '#platform/errors.js';
import { parseBody } from '#platform/http/parse.js';
import { STATUS_OF } from '#platform/http/problem.js';
import type { HttpEvent } from '#platform/http/types.js';
import { activeMsAt, budgetExceeded, costAt, effectiveLimits, limitFailure, reachedLimit } from '#runs/limits.js';
import { type Run, runView } from '#runs/model.js';
import { CreateRunBody } from '#runs/schemas.js';
import { leaveRunning } from '#runs/usage.js';
import { runFixture } from '../helpers/run-fixture.js';

/**
 * Run limits (lib/runs/limits.ts): the merge of harness defaults and the
 * run's own values, what each limit counts and when it is reached, active
 * time across a wait for a person, and how the two schemas refuse a bad value.
 */

const T0 = new Date('2026-03-01T12:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);

/** A run of local/echo on a small machine (10 µ$ per started second), running since T0 unless told. */
const runOf = (fields: Partial<Run> = {}): Run =>
  runFixture({ id: 'run_limits', account_id: 'acc-1', running_since: T0.toISOString(), started_at: T0.toISOString(), ...fields });

describe('effectiveLimits: the harness’s limits are defaults, the run’s own win field by field', () => {
  test('none anywhere is none', () => {
    assert.equal(effectiveLimits(undefined, undefined), undefined);
    assert.equal(effectiveLimits({}, {}), undefined);
  });

  test('either alone is taken as it is', () => {
    assert.deepEqual(effectiveLimits({ max_tool_calls: 3 }, undefined), { max_tool_calls: 3 });
    assert.deepEqual(effectiveLimits(undefined, { max_duration_seconds: 60 }), { max_duration_seconds: 60 });
  });

  test('both: each field from the run when it sets it, else from the harness', () => {
    assert.deepEqual(effectiveLimits({ max_tool_calls: 3, max_cost_micro_usd: 1_000 }, { max_tool_calls: 10, max_duration_seconds: 60 }), {
      max_cost_micro_usd: 1_000,
      max_duration_seconds: 60,
      max_tool_calls: 10,
    });
  });
});

describe('what each limit counts', () => {
  test('active time is the banked machine time plus the stretch since running_since; none while not running', () => {
    assert.equal(activeMsAt(runOf(), at(2_500)), 2_500);
    assert.equal(activeMsAt(runOf({ machine_ms: 4_000 }), at(1_000)), 5_000);
    assert.equal(activeMsAt(runOf({ machine_ms: 4_000, running_since: null }), at(3_600_000)), 4_000);
  });

  test('time waiting for a person does not count: banked when the run waits, counted again from when it resumes', () => {
    const limits = { max_duration_seconds: 5 };
    // Running 3 s, then waiting an hour for an approval.
    const waiting = { ...runOf({ limits }), status: 'waiting' as const, ...leaveRunning(runOf({ limits }), at(3_000)) };
    assert.deepEqual([waiting.machine_ms, waiting.running_since], [3_000, null]);
    assert.equal(activeMsAt(waiting, at(3_600_000)), 3_000);
    assert.equal(reachedLimit(waiting, 'tool_call', at(3_600_000)), undefined, 'no limit is reached while a run waits');
    // Resumed an hour later: 1.9 s more is under the 5 s, 2 s more reaches it.
    const resumed = { ...waiting, status: 'running' as const, running_since: at(3_603_000).toISOString() };
    assert.equal(activeMsAt(resumed, at(3_604_900)), 4_900);
    assert.equal(reachedLimit(resumed, 'tool_call', at(3_604_900)), undefined);
    assert.equal(reachedLimit(resumed, 'tool_call', at(3_605_000)), 'max_duration_seconds');
    assert.equal(reachedLimit(resumed, 'model_turn', at(3_605_000)), 'max_duration_seconds');
  });

  test('cost is the recorded tokens plus machine time up to now, priced: what the run would be billed if it ended now', () => {
    const run = runOf({ usage: { input_tokens: 30, output_tokens: 5, cost_micro_usd: 40 } });
    // local/echo: 1 µ$ an input token, 2 an output token; small: 10 µ$ a started second.
    assert.equal(costAt(run, at(0)), 30 + 2 * 5);
    assert.equal(costAt(run, at(1)), 30 + 2 * 5 + 10);
    assert.equal(costAt(run, at(1_001)), 30 + 2 * 5 + 20);
  });

  test('cost is reached at the limit, before a model turn or a tool call alike', () => {
    const run = runOf({ usage: { input_tokens: 30, output_tokens: 5, cost_micro_usd: 40 }, limits: { max_cost_micro_usd: 50 } });
    assert.equal(reachedLimit(run, 'model_turn', at(0)), undefined, '40 < 50');
    assert.equal(reachedLimit(run, 'model_turn', at(1)), 'max_cost_micro_usd', '50 reaches 50');
    assert.equal(reachedLimit(run, 'tool_call', at(1)), 'max_cost_micro_usd');
  });

  test('tool calls are counted before a tool call only: the model may take its turn after the last allowed call', () => {
    const run = runOf({ limits: { max_tool_calls: 1 }, tool_calls: 1 });
    assert.equal(reachedLimit(run, 'model_turn', at(0)), undefined);
    assert.equal(reachedLimit(run, 'tool_call', at(0)), 'max_tool_calls');
    assert.equal(reachedLimit({ ...run, tool_calls: 0 }, 'tool_call', at(0)), undefined);
    assert.equal(reachedLimit({ ...run, tool_calls: undefined }, 'tool_call', at(0)), undefined, 'absent: none made');
  });

  test('a run without limits never reaches one; several reached name the first of cost, duration, tool calls', () => {
    assert.equal(reachedLimit(runOf({ tool_calls: 99, machine_ms: 10_000_000 }), 'tool_call', at(0)), undefined);
    const all = runOf({ limits: { max_tool_calls: 1, max_duration_seconds: 1, max_cost_micro_usd: 1 }, tool_calls: 1 });
    assert.equal(reachedLimit(all, 'tool_call', at(1_000)), 'max_cost_micro_usd');
    assert.equal(reachedLimit({ ...all, limits: { max_tool_calls: 1, max_duration_seconds: 1 } }, 'tool_call', at(1_000)), 'max_duration_seconds');
  });
});

describe('the failure', () => {
  test('budget_exceeded, not retryable, naming the limit', () => {
    const failure = budgetExceeded('max_tool_calls', { max_tool_calls: 1 });
    assert.deepEqual({ ...failure, message: undefined }, { code: 'budget_exceeded', message: undefined, retryable: false, limit: 'max_tool_calls' });
    assert.match(failure.message, /1 tool call\b/);
    assert.deepEqual(limitFailure(runOf({ limits: { max_duration_seconds: 2 } }), 'model_turn', at(2_000)), {
      code: 'budget_exceeded',
      message: 'The run reached its limit of 2 seconds of running time (limits.max_duration_seconds).',
      retryable: false,
      limit: 'max_duration_seconds',
    });
    assert.equal(limitFailure(runOf({ limits: { max_duration_seconds: 2 } }), 'model_turn', at(1_999)), undefined);
  });

  test('the run shows its limits in their documented order, null when it has none', () => {
    assert.equal(runView(runOf()).limits, null);
    const shown = runView(runOf({ limits: { max_tool_calls: 2, max_cost_micro_usd: 9 } })).limits;
    assert.deepEqual(Object.entries(shown!), [
      ['max_cost_micro_usd', 9],
      ['max_tool_calls', 2],
    ]);
  });
});

describe('validation', () => {
  const event = (body: unknown) => ({ body: JSON.stringify(body) }) as unknown as HttpEvent;
  const base = { harness_id: 'h_1', machine_id: 'mch_1', input: 'hi' };

  test('POST /v2/runs: positive integers are taken; anything else is 422 validation_failed naming /limits/<field>', () => {
    const { value } = parseBody(event({ ...base, limits: { max_cost_micro_usd: 1, max_duration_seconds: 60, max_tool_calls: 3 } }), CreateRunBody);
    assert.deepEqual(value.limits, { max_cost_micro_usd: 1, max_duration_seconds: 60, max_tool_calls: 3 });
    assert.equal(parseBody(event({ ...base, limits: {} }), CreateRunBody).value.limits?.max_tool_calls, undefined);
    for (const [limits, name] of [
      [{ max_tool_calls: 0 }, '/limits/max_tool_calls'],
      [{ max_tool_calls: -1 }, '/limits/max_tool_calls'],
      [{ max_duration_seconds: 1.5 }, '/limits/max_duration_seconds'],
      [{ max_cost_micro_usd: '100' }, '/limits/max_cost_micro_usd'],
      [{ max_cost_micro_usd: null }, '/limits/max_cost_micro_usd'],
      [{ max_cost_micro_usd: 2 ** 60 }, '/limits/max_cost_micro_usd'],
      [7, '/limits'],
      [null, '/limits'],
    ] as const) {
      assert.throws(
        () => parseBody(event({ ...base, limits }), CreateRunBody),
        (e: unknown) =>
          e instanceof ValidationError &&
          STATUS_OF[e.kind] === 422 &&
          e.options.errors?.length === 1 &&
          e.options.errors[0]!.name === name &&
          e.options.errors[0]!.location === 'body',
        JSON.stringify(limits),
      );
    }
  });

  test('POST /v2/runs: a field limits does not have is 400 unknown_field, like any other', () => {
    assert.throws(
      () => parseBody(event({ ...base, limits: { max_turns: 3 } }), CreateRunBody),
      (e: unknown) => e instanceof UnknownFieldError && STATUS_OF[e.kind] === 400 && e.options.errors?.[0]?.name === '/limits/max_turns',
    );
  });

  test('harness.json: limits are kept as its runs’ defaults; an invalid one is refused with the harness’s other faults', () => {
    const files = (config: Record<string, unknown>) => [
      { path: 'harness.json', content: JSON.stringify({ model: 'local/echo', instructions: 'prompt.md', ...config }) },
      { path: 'prompt.md', content: 'You help.' },
    ];
    assert.deepEqual(validateHarnessFiles(files({ limits: { max_tool_calls: 2 } })).config.limits, { max_tool_calls: 2 });
    assert.equal(validateHarnessFiles(files({})).config.limits, undefined);
    try {
      validateHarnessFiles(files({ max_turns: 0, limits: { max_tool_calls: 0, max_duration_seconds: 'long', max_steps: 1 } }));
      assert.fail('accepted');
    } catch (error) {
      assert.ok(error instanceof HarnessFilesInvalidError, String(error));
      const reason = error.options.errors!.find((e) => e.name === 'harness.json')!.reason;
      for (const part of [
        '/max_turns must be',
        '/limits/max_tool_calls must be a positive integer',
        '/limits/max_duration_seconds must be a positive integer',
        '/limits/max_steps is not a field of harness.json',
      ]) {
        assert.ok(reason.includes(part), `${part} in ${reason}`);
      }
    }
  });
});
