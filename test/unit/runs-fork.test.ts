import assert from 'node:assert/strict';
import { BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, test } from 'vitest';
import type { LoggedEvent } from '#events/pages.js';
import { pageEvents } from '#events/pages.js';
import type { Harness } from '#harnesses/index.js';
import type { Machine } from '#machines/index.js';
import { ConflictError, NotFoundError, RateLimitedError, ValidationError } from '#platform/errors.js';
import { keys } from '#platform/table/keys.js';
import { planFork } from '#runs/fork-plan.js';
import { type ForkRunDeps, forkRun } from '#runs/fork-run.js';
import { forksRepo } from '#runs/forks-repository.js';
import type { Run, RunEventData, StepItem } from '#runs/model.js';
import { runsRepo } from '#runs/runs-repository.js';
import { mockedDynamoDb } from '../helpers/dynamodb-mock.js';
import { runFixture } from '../helpers/run-fixture.js';

/**
 * Forks (lib/runs/fork-plan.ts, fork-run.ts, forks-repository.ts): which
 * recorded steps a fork at `from_seq` reuses and which events it copies,
 * the use case on fakes, and the repository on the mocked client.
 */

const SOURCE = 'run_000000001AAAAAAAAAAAAAAAA';
const ACCOUNT = 'acc-1';

const logged = (data: RunEventData[]): LoggedEvent<RunEventData>[] => data.map((d, i) => ({ seq: i + 1, created_at: '2026-01-01T00:00:00.000Z', data: d }));
const status = (value: Run['status']): RunEventData => ({ type: 'run.status', data: { status: value } });
const usage = (tokens: number): RunEventData => ({ type: 'usage', data: { input_tokens: tokens, output_tokens: tokens, cost_micro_usd: tokens } });
const user = (text: string): RunEventData => ({ type: 'message', data: { role: 'user', text } });
const assistant = (text: string): RunEventData => ({ type: 'message', data: { role: 'assistant', text } });
const call = (id: string, text: string): RunEventData => ({ type: 'tool_call', data: { call_id: id, name: 'srv__echo', arguments: { text } } });
const result = (id: string, text: string): RunEventData => ({ type: 'tool_result', data: { call_id: id, name: 'srv__echo', text, is_error: false } });

const turnStep = (turn: number, calls: string[], content = ''): StepItem => ({
  turn,
  content,
  tool_calls: calls.map((id) => ({ id, name: 'srv__echo', arguments: { text: id } })),
  input_tokens: 10,
  output_tokens: 1,
});
const resultStep = (turn: number, callIndex: number, id: string): StepItem => ({
  turn,
  call: callIndex,
  call_id: id,
  name: 'srv__echo',
  text: `echo: ${id}`,
  is_error: false,
});

/**
 * A local/script run of three tool calls, one a turn, then its answer:
 *  1 queued, 2 running, 3 user, 4 call_1, 5 usage, 6 result_1, 7 call_2, 8 usage, 9 result_2,
 * 10 call_3, 11 usage, 12 result_3, 13 assistant "done", 14 usage, 15 completed.
 */
const THREE_CALLS = logged([
  status('queued'),
  status('running'),
  user('go'),
  call('call_1', 'one'),
  usage(10),
  result('call_1', 'echo: call_1'),
  call('call_2', 'two'),
  usage(20),
  result('call_2', 'echo: call_2'),
  call('call_3', 'three'),
  usage(30),
  result('call_3', 'echo: call_3'),
  assistant('done'),
  usage(40),
  status('completed'),
]);
const THREE_CALL_STEPS: StepItem[] = [
  turnStep(0, ['call_1']),
  resultStep(0, 0, 'call_1'),
  turnStep(1, ['call_2']),
  resultStep(1, 0, 'call_2'),
  turnStep(2, ['call_3']),
  resultStep(2, 0, 'call_3'),
  turnStep(3, [], 'done'),
];

const reused = (plan: ReturnType<typeof planFork>) => ({
  turns: plan.turns.map((t) => t.turn),
  results: plan.results.map((r) => `${r.turn}#${r.call}`),
  through: plan.through,
});
const markers = (events: RunEventData[]) => events.map((e) => (e.data as { reused_from?: { run_id: string; seq: number } }).reused_from);

describe('planFork: the steps reused up to from_seq', () => {
  test('after the first tool result: its turn and result; the user message, the call and the result are copied, marked with their source seqs', () => {
    const plan = planFork(SOURCE, THREE_CALLS, THREE_CALL_STEPS, 6);
    assert.deepEqual(reused(plan), { turns: [0], results: ['0#0'], through: 6 });
    assert.deepEqual(
      plan.events.map((e) => e.type),
      ['message', 'tool_call', 'tool_result'],
      'no run.status, no usage',
    );
    assert.deepEqual(markers(plan.events), [
      { run_id: SOURCE, seq: 3 },
      { run_id: SOURCE, seq: 4 },
      { run_id: SOURCE, seq: 6 },
    ]);
    assert.equal((plan.events[0]!.data as { text: string }).text, 'go', 'the data is the source’s, with the marker added');
  });

  test('the usage event after a turn does not count: at the call (4) or its usage (5) the turn is reused and its call is made again', () => {
    for (const seq of [4, 5]) {
      const plan = planFork(SOURCE, THREE_CALLS, THREE_CALL_STEPS, seq);
      assert.deepEqual(reused(plan), { turns: [0], results: [], through: 4 }, `from_seq ${seq}`);
      assert.deepEqual(
        plan.events.map((e) => e.type),
        ['message', 'tool_call'],
      );
    }
  });

  test('before the first turn’s events are all in (the statuses, the user message): nothing is reused, nothing copied', () => {
    for (const seq of [1, 2, 3]) assert.deepEqual(reused(planFork(SOURCE, THREE_CALLS, THREE_CALL_STEPS, seq)), { turns: [], results: [], through: 0 });
    assert.deepEqual(planFork(SOURCE, THREE_CALLS, THREE_CALL_STEPS, 3).events, []);
  });

  test('later points reuse every whole step before them, in order', () => {
    assert.deepEqual(reused(planFork(SOURCE, THREE_CALLS, THREE_CALL_STEPS, 9)), { turns: [0, 1], results: ['0#0', '1#0'], through: 9 });
    assert.deepEqual(reused(planFork(SOURCE, THREE_CALLS, THREE_CALL_STEPS, 11)), { turns: [0, 1, 2], results: ['0#0', '1#0'], through: 10 });
  });

  test('the final answer is never reused: at or past it, the fork plays that turn again', () => {
    for (const seq of [12, 13, 14, 15]) {
      const plan = planFork(SOURCE, THREE_CALLS, THREE_CALL_STEPS, seq);
      assert.deepEqual(reused(plan), { turns: [0, 1, 2], results: ['0#0', '1#0', '2#0'], through: 12 }, `from_seq ${seq}`);
      assert.ok(!plan.events.some((e) => e.type === 'message' && e.data.role === 'assistant'));
    }
  });

  test('a turn of several calls: from_seq between its calls forks before the turn; after its first result, the other calls are made again', () => {
    // 1 queued, 2 running, 3 user, 4 assistant text, 5 call a, 6 call b, 7 usage, 8 result a, 9 result b, 10 assistant, 11 usage, 12 completed
    const events = logged([
      status('queued'),
      status('running'),
      user('go'),
      assistant('two calls'),
      call('a', 'a'),
      call('b', 'b'),
      usage(1),
      result('a', 'A'),
      result('b', 'B'),
      assistant('done'),
      usage(2),
      status('completed'),
    ]);
    const steps = [turnStep(0, ['a', 'b'], 'two calls'), resultStep(0, 0, 'a'), resultStep(0, 1, 'b'), turnStep(1, [], 'done')];
    assert.deepEqual(reused(planFork(SOURCE, events, steps, 5)), { turns: [], results: [], through: 0 }, 'inside the turn’s calls');
    assert.deepEqual(reused(planFork(SOURCE, events, steps, 6)), { turns: [0], results: [], through: 6 });
    const one = planFork(SOURCE, events, steps, 8);
    assert.deepEqual(reused(one), { turns: [0], results: ['0#0'], through: 8 });
    assert.deepEqual(
      one.events.map((e) => e.type),
      ['message', 'message', 'tool_call', 'tool_call', 'tool_result'],
    );
  });

  test('the interaction events of a reused call are copied with it; those of a call made again are not', () => {
    const interaction = (status: string): RunEventData => ({ type: 'interaction', data: { interaction_id: 'i-1', type: 'approval', status } });
    // 1 queued, 2 running, 3 user, 4 call, 5 usage, 6 interaction pending, 7 waiting, 8 interaction answered, 9 running, 10 result, 11 call, 12 usage, ...
    const events = logged([
      status('queued'),
      status('running'),
      user('go'),
      call('call_1', 'one'),
      usage(1),
      interaction('pending'),
      status('waiting'),
      interaction('answered'),
      status('running'),
      result('call_1', 'echo: call_1'),
      call('call_2', 'two'),
      usage(2),
      status('failed'),
    ]);
    const steps = [turnStep(0, ['call_1']), resultStep(0, 0, 'call_1'), turnStep(1, ['call_2'])];
    const whole = planFork(SOURCE, events, steps, 10);
    assert.deepEqual(
      whole.events.map((e) => `${e.type}${e.type === 'interaction' ? `:${e.data.status}` : ''}`),
      ['message', 'tool_call', 'interaction:pending', 'interaction:answered', 'tool_result'],
    );
    const beforeResult = planFork(SOURCE, events, steps, 8);
    assert.deepEqual(reused(beforeResult), { turns: [0], results: [], through: 4 });
    assert.ok(!beforeResult.events.some((e) => e.type === 'interaction'), 'the call is made again, and asks again');
  });

  test('a fork’s own log (copied events, its statuses, then its live events) is read like any: a fork of a fork', () => {
    const copied = (data: RunEventData, seq: number) =>
      ({ ...data, data: { ...data.data, reused_from: { run_id: 'run_other', seq } } }) as unknown as RunEventData;
    const events = logged([
      copied(user('go'), 3),
      copied(call('call_1', 'one'), 4),
      copied(result('call_1', 'echo: call_1'), 6),
      status('queued'),
      status('running'),
      call('call_2', 'two'),
      usage(5),
      result('call_2', 'echo: call_2'),
      assistant('done'),
      usage(6),
      status('completed'),
    ]);
    const steps = [turnStep(0, ['call_1']), resultStep(0, 0, 'call_1'), turnStep(1, ['call_2']), resultStep(1, 0, 'call_2'), turnStep(2, [], 'done')];
    const plan = planFork(SOURCE, events, steps, 8);
    assert.deepEqual(reused(plan), { turns: [0, 1], results: ['0#0', '1#0'], through: 8 });
    assert.deepEqual(
      markers(plan.events),
      [1, 2, 3, 6, 8].map((seq) => ({ run_id: SOURCE, seq })),
      'marked with the direct source',
    );
  });

  test('events the steps do not explain stop the reuse there (played live rather than reused wrongly); message.delta and unknown types are skipped', () => {
    const delta = { type: 'message.delta', data: { text: 'do' } } as unknown as RunEventData;
    const events = logged([status('queued'), status('running'), user('go'), call('call_1', 'one'), usage(1), delta, result('other', 'x'), status('failed')]);
    const steps = [turnStep(0, ['call_1']), resultStep(0, 0, 'call_1')];
    assert.deepEqual(reused(planFork(SOURCE, events, steps, 7)), { turns: [0], results: [], through: 4 });
    const withDelta = logged([status('queued'), status('running'), delta, user('go'), call('call_1', 'one'), usage(1), result('call_1', 'x')]);
    const plan = planFork(SOURCE, withDelta, steps, 7);
    assert.deepEqual(reused(plan), { turns: [0], results: ['0#0'], through: 7 });
    assert.ok(!plan.events.some((e) => (e.type as string) === 'message.delta'));
  });
});

const harnessOf = (): Harness => ({
  id: 'h_1',
  account_id: ACCOUNT,
  name: 'h',
  model: 'local/script',
  config: { model: 'local/script', instructions: 'prompt.md', tools: [], mcp_servers: [], max_turns: 10 },
  files: [],
  total_bytes: 10,
  instructions_empty: false,
  created_at: '2026-01-01T00:00:00.000Z',
});
const machineOf = (id = 'mch_1'): Machine => ({
  id,
  account_id: ACCOUNT,
  name: 'm',
  size: 'small',
  current_run_id: null,
  queued_runs: 0,
  created_at: '2026-01-01T00:00:00.000Z',
});

/** forkRun on fakes: the source's events and steps, what it seeds and what it starts. */
function forkWorld(source: Run) {
  const runs = new Map<string, Run>([[source.id, source]]);
  const seeded: Array<{ runId: string; events: RunEventData[]; steps: unknown[] }> = [];
  const discarded: string[] = [];
  const started: Array<{ run: Run; events: RunEventData[] }> = [];
  const order: string[] = [];
  const refuse = { start: undefined as Error | undefined };
  const builders = runsRepo({ db: undefined as never, tableName: 't' });
  const deps: ForkRunDeps = {
    runs: {
      get: async (id) => runs.get(id),
      getOwned: async (accountId, id) => (runs.get(id)?.account_id === accountId ? runs.get(id) : undefined),
      steps: async () => THREE_CALL_STEPS,
      async start(run, events) {
        order.push('start');
        if (refuse.start) throw refuse.start;
        started.push({ run, events });
        runs.set(run.id, { ...run, event_seq: run.event_seq + events.length });
        return 'started';
      },
      queueEntryPut: builders.queueEntryPut,
      queueEntryDelete: builders.queueEntryDelete,
      queueHead: async () => undefined,
      change: async () => undefined,
    },
    forks: {
      eventsThrough: async (_runId, toSeq) => THREE_CALLS.filter((e) => e.seq <= toSeq),
      async seed(runId, events, steps) {
        order.push('seed');
        seeded.push({ runId, events: [...events], steps: [...steps] });
      },
      async discard(runId) {
        discarded.push(runId);
      },
    },
    harnesses: { get: async (accountId, id) => (accountId === ACCOUNT && id === 'h_1' ? harnessOf() : undefined) },
    machines: { get: async (accountId, id) => (accountId === ACCOUNT && ['mch_1', 'mch_2'].includes(id) ? machineOf(id) : undefined) },
    chats: {
      get: async (accountId, id) =>
        accountId === ACCOUNT && id === 'chat-1'
          ? { id, account_id: ACCOUNT, title: null, workflow_id: null, machine_id: 'mch_1', last_run_id: SOURCE, created_at: '2026-01-01T00:00:00.000Z' }
          : undefined,
    },
    interactions: { resolve: async () => undefined },
    tableName: 't',
    async wake() {
      order.push('wake');
    },
    runEnded: async () => undefined,
    announce: async () => undefined,
    async admit() {
      order.push('admit');
    },
  };
  return { deps, runs, seeded, discarded, started, order, refuse };
}

const failedSource = (fields: Partial<Run> = {}) =>
  runFixture({
    id: SOURCE,
    account_id: ACCOUNT,
    status: 'failed',
    harness_id: 'h_1',
    input: { steps: [] },
    metadata: { ticket: 'T-1' },
    event_seq: 15,
    usage: { input_tokens: 100, output_tokens: 10, cost_micro_usd: 500 },
    ...fields,
  });

describe('forkRun', () => {
  test('a new run of the source’s harness, input and machine, its log after the copied events, its turns the reused ones, its usage zero', async () => {
    const w = forkWorld(failedSource());
    const fork = await forkRun(w.deps, ACCOUNT, SOURCE, { from_seq: 6 }, { concurrency: 5 });
    assert.deepEqual(w.order, ['admit', 'seed', 'wake', 'start'], 'seeded before it is woken and created');
    assert.equal(w.seeded[0]!.runId, fork.id);
    assert.equal(w.seeded[0]!.events.length, 3);
    assert.deepEqual(
      w.seeded[0]!.steps.map((s) => JSON.stringify([(s as StepItem).turn, (s as StepItem).call])),
      ['[0,null]', '[0,0]'],
    );
    const { run, events } = w.started[0]!;
    assert.deepEqual(run.forked_from, { run_id: SOURCE, seq: 6 });
    assert.equal(run.turns, 1);
    assert.equal(run.event_seq, 3, 'its own first page follows the copied events');
    assert.deepEqual(
      events.map((e) => e.type === 'run.status' && e.data.status),
      ['queued', 'running'],
    );
    assert.equal(fork.event_seq, 5);
    assert.deepEqual(run.usage, { input_tokens: 0, output_tokens: 0, cost_micro_usd: 0 });
    assert.deepEqual([run.harness_id, run.machine_id, run.input, run.metadata], ['h_1', 'mch_1', { steps: [] }, { ticket: 'T-1' }]);
    assert.equal(run.concurrency_slot, true);
    assert.equal(run.chat_history_before, undefined, 'not on a chat');
  });

  test('machine_id and metadata given win; on a chat, the history is the source’s and another machine than the chat’s is refused', async () => {
    const w = forkWorld(failedSource({ chat_id: null }));
    const fork = await forkRun(w.deps, ACCOUNT, SOURCE, { from_seq: 6, machine_id: 'mch_2', metadata: { retry: 1 } });
    assert.equal(fork.machine_id, 'mch_2');
    assert.deepEqual(fork.metadata, { retry: 1 });

    const onChat = forkWorld(failedSource({ chat_id: 'chat-1', created_at: '2026-02-01T00:00:00.000Z' }));
    const chatFork = await forkRun(onChat.deps, ACCOUNT, SOURCE, { from_seq: 6 });
    assert.equal(chatFork.chat_id, 'chat-1');
    assert.equal(chatFork.chat_history_before, '2026-02-01T00:00:00.000Z', 'the chat’s runs created before the source');
    const ofFork = forkWorld(failedSource({ chat_id: 'chat-1', chat_history_before: '2026-01-15T00:00:00.000Z' }));
    assert.equal(
      (await forkRun(ofFork.deps, ACCOUNT, SOURCE, { from_seq: 6 })).chat_history_before,
      '2026-01-15T00:00:00.000Z',
      'a fork of a fork: the first source’s',
    );
    await assert.rejects(forkRun(onChat.deps, ACCOUNT, SOURCE, { from_seq: 6, machine_id: 'mch_2' }), (e: unknown) => {
      assert.ok(e instanceof ValidationError);
      assert.equal(e.options.errors?.[0]?.code, 'chat_machine_mismatch');
      return true;
    });
    const other = forkWorld(failedSource({ machine_id: 'mch_1' }));
    await assert.rejects(forkRun(other.deps, ACCOUNT, SOURCE, { from_seq: 6, machine_id: 'mch_nope' }), (e: unknown) => {
      assert.ok(e instanceof ValidationError);
      assert.equal(e.options.errors?.[0]?.name, '/machine_id');
      return true;
    });
    assert.equal(other.seeded.length, 0, 'nothing is written for a fork refused before it is made');
  });

  test('404 for another account’s or an unknown run, 409 run_not_ended, 422 /from_seq past the last event or past retention', async () => {
    const w = forkWorld(failedSource());
    await assert.rejects(forkRun(w.deps, 'acc-2', SOURCE, { from_seq: 1 }), NotFoundError);
    await assert.rejects(forkRun(w.deps, ACCOUNT, 'run_nope', { from_seq: 1 }), NotFoundError);
    for (const status of ['queued', 'running', 'waiting'] as const) {
      const busy = forkWorld(failedSource({ status }));
      await assert.rejects(forkRun(busy.deps, ACCOUNT, SOURCE, { from_seq: 1 }), (e: unknown) => e instanceof ConflictError && e.code === 'run_not_ended');
    }
    const fromSeq = (code: string) => (e: unknown) =>
      e instanceof ValidationError &&
      e.options.errors?.[0]?.name === '/from_seq' &&
      e.options.errors[0].location === 'body' &&
      e.options.errors[0].code === code;
    await assert.rejects(forkRun(w.deps, ACCOUNT, SOURCE, { from_seq: 16 }), fromSeq('out_of_range'));
    w.deps.forks.eventsThrough = async (_id, toSeq) => THREE_CALLS.filter((e) => e.seq > 3 && e.seq <= toSeq);
    await assert.rejects(forkRun(w.deps, ACCOUNT, SOURCE, { from_seq: 6 }), fromSeq('expired'));
    assert.equal(w.seeded.length, 0);
  });

  test('a creation refused at the start (the account’s slots full) discards what was seeded', async () => {
    const w = forkWorld(failedSource());
    w.refuse.start = new RateLimitedError('full', 1);
    await assert.rejects(forkRun(w.deps, ACCOUNT, SOURCE, { from_seq: 6 }, { concurrency: 1 }), RateLimitedError);
    assert.equal(w.seeded.length, 1);
    assert.deepEqual(w.discarded, [w.seeded[0]!.runId]);
  });
});

describe('the runs repository for forks', () => {
  const { mock, table } = mockedDynamoDb();
  const repo = runsRepo(table);
  beforeEach(() => mock.reset());

  test('createItems puts a run’s first own page after the events a fork copied (run.event_seq), and the run at their sum', () => {
    const run = runFixture({ id: 'run_000000002BBBBBBBBBBBBBBBB', account_id: ACCOUNT, event_seq: 3 });
    const [runPut, pagePut] = repo.createItems(run, [status('queued'), status('running')], []);
    assert.equal(runPut!.Put!.Item!.event_seq, 5);
    assert.deepEqual([pagePut!.Put!.Item!.pk, pagePut!.Put!.Item!.sk], [keys.runEvent(run.id, 4).pk, keys.runEvent(run.id, 4).sk]);
    assert.deepEqual(
      pageEvents<RunEventData>(pagePut!.Put!.Item!).map((e) => e.seq),
      [4, 5],
    );
    const plain = repo.createItems({ ...run, event_seq: 0 }, [status('queued')], []);
    assert.equal(plain[0]!.Put!.Item!.event_seq, 1);
    assert.equal(plain[1]!.Put!.Item!.sk, keys.runEvent(run.id, 1).sk);
  });

  test('chatTurns before a time reads the chat’s turns of runs created before it only (a fork’s history)', async () => {
    mock.on(QueryCommand).resolves({ Items: [] });
    await repo.chatTurns('chat-1', 20, '2026-02-01T00:00:00.000Z');
    const input = mock.commandCalls(QueryCommand)[0]!.args[0].input;
    assert.equal(input.KeyConditionExpression, 'pk = :pk AND sk BETWEEN :prefix AND :bound');
    assert.deepEqual(input.ExpressionAttributeValues, { ':pk': 'CHAT#chat-1', ':prefix': 'RUNTURN#', ':bound': 'RUNTURN#2026-02-01T00:00:00.000Z#' });
    assert.ok(keys.chatRunTurn('chat-1', '2026-01-31T23:59:59.999Z', 'run_x').sk < (input.ExpressionAttributeValues![':bound'] as string));
    assert.ok(keys.chatRunTurn('chat-1', '2026-02-01T00:00:00.000Z', 'run_x').sk > (input.ExpressionAttributeValues![':bound'] as string));
  });
});

describe('forksRepo', () => {
  const { mock, table } = mockedDynamoDb();
  const repo = forksRepo(table);
  const FORK = 'run_000000002BBBBBBBBBBBBBBBB';
  beforeEach(() => mock.reset());

  test('seed puts the copied events as pages from seq 1 and the steps as the fork’s own step items', async () => {
    mock.on(BatchWriteCommand).resolves({});
    await repo.seed(FORK, [user('go'), call('call_1', 'one')], [turnStep(0, ['call_1']) as never, resultStep(0, 0, 'call_1') as never]);
    const puts = mock.commandCalls(BatchWriteCommand).flatMap((c) => c.args[0].input.RequestItems!.t!.map((r) => r.PutRequest!.Item!));
    assert.deepEqual(
      puts.map((item) => [item.pk, item.sk, item.entity]),
      [
        [keys.runEvent(FORK, 1).pk, keys.runEvent(FORK, 1).sk, 'run_event_page'],
        [keys.runStep(FORK, 0).pk, keys.runStep(FORK, 0).sk, 'run_step'],
        [keys.runStep(FORK, 0, 0).pk, keys.runStep(FORK, 0, 0).sk, 'run_step'],
      ],
    );
    assert.deepEqual(
      pageEvents<RunEventData>(puts[0]!).map((e) => [e.seq, e.data.type]),
      [
        [1, 'message'],
        [2, 'tool_call'],
      ],
    );
  });

  test('a conversation larger than one page is put as pages that tile seq 1…n', async () => {
    mock.on(BatchWriteCommand).resolves({});
    const big = (n: number) => result(`call_${n}`, 'x'.repeat(150_000));
    await repo.seed(FORK, [user('go'), big(1), big(2), big(3), big(4)], []);
    const pages = mock.commandCalls(BatchWriteCommand).flatMap((c) => c.args[0].input.RequestItems!.t!.map((r) => r.PutRequest!.Item!));
    assert.ok(pages.length > 1, `${pages.length} pages`);
    assert.deepEqual(
      pages.flatMap((page) => pageEvents<RunEventData>(page).map((e) => e.seq)),
      [1, 2, 3, 4, 5],
    );
    for (const page of pages) assert.equal(page.sk, keys.runEvent(FORK, page.first_seq as number).sk);
  });

  test('discard deletes what a run id holds, unless its run item is there', async () => {
    mock.on(QueryCommand).resolvesOnce({ Items: [keys.runEvent(FORK, 1), keys.runStep(FORK, 0)] });
    mock.on(BatchWriteCommand).resolves({});
    await repo.discard(FORK);
    const deleted = mock.commandCalls(BatchWriteCommand).flatMap((c) => c.args[0].input.RequestItems!.t!.map((r) => r.DeleteRequest!.Key));
    assert.deepEqual(deleted, [keys.runEvent(FORK, 1), keys.runStep(FORK, 0)]);

    mock.reset();
    mock.on(QueryCommand).resolvesOnce({ Items: [keys.run(FORK), keys.runStep(FORK, 0)] });
    await repo.discard(FORK);
    assert.equal(mock.commandCalls(BatchWriteCommand).length, 0);
  });
});
