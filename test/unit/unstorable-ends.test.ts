import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, test } from 'vitest';
import { releaseSlot } from '#accounts/index.js';
import { billing } from '#billing/index.js';
import { pageEvents } from '#events/pages.js';
import { EventBuffer } from '#execution/emit.js';
import { finishRequest } from '#execution/finish.js';
import type { WorkflowRequest } from '#execution/model.js';
import { workflowRequests } from '#execution/workflow-requests.js';
import { type Machine, machineOccupancy } from '#machines/index.js';
import { keys } from '#platform/table/keys.js';
import type { TransactItem } from '#platform/table/transactions.js';
import { type EndDeps, endRun } from '#runs/end-run.js';
import type { Run, RunEventData } from '#runs/model.js';
import { runs } from '#runs/run-changes.js';
import { runsRepo } from '#runs/runs-repository.js';
import { settlements } from '#settlement/index.js';
import { cancelled, mockedDynamoDb, nestedTooDeep, throttled } from '../helpers/dynamodb-mock.js';
import { runFixture } from '../helpers/run-fixture.js';

/**
 * An end DynamoDB refuses for what it holds (a value nested past its 32
 * levels, an item too large) is refused on every try: the run or request
 * must end all the same, failed with `internal_error`, with everything an
 * end does (machine, slot, day counts, debit) and its account event reduced.
 * The real repositories on the mocked client: the first transaction is
 * refused as DynamoDB refuses it, the second is what gets written.
 */

const { mock, table } = mockedDynamoDb();
const ACCOUNT = randomUUID();
const RUN_ID = 'run_000000001AAAAAAAAAAAAAAAA';
const MACHINE_ID = 'mch_000000001AAAAAAAAAAAAAAAA';
const NOW = new Date('2026-03-01T12:00:00.000Z');

const nested = (levels: number): Record<string, unknown> => {
  let value: Record<string, unknown> = { leaf: true };
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
};

const windows: TransactItem = { Update: { TableName: 't', Key: keys.usageWindows(ACCOUNT), UpdateExpression: 'SET x = :x' } };
const meter = { record: async () => ({ item: windows, extraMicroUsd: 0 }) };

const transactions = () => mock.commandCalls(TransactWriteCommand).map((call) => call.args[0].input.TransactItems!);
const puts = (items: TransactItem[], entity: string) => items.flatMap((item) => (item.Put?.Item?.entity === entity ? [item.Put.Item] : []));

beforeEach(() => {
  mock.reset();
  // The log's end, which a change of a running run reads first: no delta past its event_seq.
  mock.on(QueryCommand).resolves({ Items: [] });
  // The ledger's reads, for a debit written with an end.
  mock.on(GetCommand, { Key: keys.transactionTotals(ACCOUNT) }).resolves({ Item: { seq: 3 } });
  mock.on(GetCommand, { Key: keys.account(ACCOUNT) }).resolves({ Item: { balance_micro_usd: 1_000_000 } });
});

describe('a run whose end DynamoDB refuses for what it holds', () => {
  function deps() {
    const told = { ended: [] as Run[], announced: [] as string[], machineLooks: 0 };
    const idle: Machine = {
      id: MACHINE_ID,
      account_id: ACCOUNT,
      name: 'm',
      size: 'small',
      current_run_id: null,
      queued_runs: 0,
      created_at: NOW.toISOString(),
    };
    const endDeps: EndDeps = {
      runs: runs(table, settlements(table, { meter, wallet: billing(table) })),
      machines: {
        get: async () => {
          told.machineLooks++;
          return idle;
        },
      },
      tableName: 't',
      wake: async () => undefined,
      interactions: { resolve: async () => undefined },
      runEnded: async (run) => void told.ended.push(run as Run),
      announce: async (_account, event) => void told.announced.push(event.type),
    };
    return { endDeps, told };
  }

  // Created before the edge bounded it: its input 31 levels deep fits the run item, not the account event's `data`.
  const deepRun = (fields: Partial<Run> = {}) =>
    runFixture({
      id: RUN_ID,
      account_id: ACCOUNT,
      machine_id: MACHINE_ID,
      input: nested(31),
      metadata: nested(31),
      event_seq: 4,
      lease_owner: 'worker-1',
      lease_until: NOW.getTime() + 60_000,
      running_since: new Date(NOW.getTime() - 10_000).toISOString(),
      started_at: new Date(NOW.getTime() - 10_000).toISOString(),
      concurrency_slot: true,
      extra_micro_usd: 250,
      ...fields,
    });

  test('a completed turn refused for nesting ends the run failed with internal_error: machine freed, slot released, day counted, debit written', async () => {
    mock.on(TransactWriteCommand).rejectsOnce(nestedTooDeep()).resolves({});
    const { endDeps, told } = deps();
    const run = deepRun();
    const message: RunEventData = { type: 'message', data: { role: 'assistant', text: 'done' } };
    const chatTurn = runsRepo(table).chatTurnPut({ ...run, chat_id: 'chat-1' }, 'done');

    const ended = await endRun(
      endDeps,
      run,
      { status: 'completed', output: 'done', leaseOwner: 'worker-1' },
      ['running'],
      { events: [message], items: [chatTurn], set: { turns: 1 }, costBefore: 0 },
      NOW,
    );

    assert.equal(ended?.status, 'failed');
    assert.equal(ended?.failure?.code, 'internal_error');
    assert.equal(ended?.failure?.retryable, false);
    assert.match(ended?.failure?.message ?? '', /\(completed\) could not be recorded/);
    assert.equal(ended?.output, null, 'the output is left out');
    const [refused, written] = transactions();
    assert.equal(transactions().length, 2);
    assert.deepEqual(puts(refused!, 'account_event')[0]?.data.input, run.input, 'the first try carried the whole view');

    const update = written!.find((item) => item.Update?.Key?.sk === keys.run(RUN_ID).sk)!.Update!;
    const values = update.ExpressionAttributeValues!;
    assert.equal(values[':status'], 'failed');
    assert.equal((values[':failure'] as { code: string }).code, 'internal_error');
    assert.ok(!Object.keys(update.ExpressionAttributeNames!).some((name) => update.ExpressionAttributeNames![name] === 'output'), 'no output set');
    assert.equal(values[':turns'], 1, 'the turn is counted');
    assert.equal(update.ConditionExpression, '#status IN (:from0) AND event_seq = :seen_seq AND lease_owner = :lease_owner_seen');

    const [event] = puts(written!, 'account_event');
    assert.equal(event?.type, 'run.failed');
    assert.deepEqual([event?.data.input, event?.data.metadata, event?.data.output, event?.data.status], ['', null, null, 'failed']);
    assert.deepEqual(puts(written!, 'chat_run_turn'), [], 'the chat turn with its input is left out');
    const [page] = puts(written!, 'run_event_page');
    assert.deepEqual(
      pageEvents<RunEventData>(page!).map((e) => [e.seq, e.data]),
      [[5, { type: 'run.status', data: { status: 'failed', failure: ended?.failure } }]],
      'the turn’s events are left out with it',
    );

    assert.ok(
      written!.some((item) => JSON.stringify(item.Update) === JSON.stringify(machineOccupancy('t').release(ACCOUNT, MACHINE_ID, RUN_ID))),
      'the machine is released',
    );
    assert.deepEqual(written!.at(-1), releaseSlot('t', ACCOUNT), 'the slot is given back');
    assert.ok(
      written!.some((item) => item.Update?.Key?.sk === keys.activityDay(ACCOUNT, '2026-03-01').sk),
      'the cost counts in the day',
    );
    assert.ok(written!.includes(windows), 'the machine time is recorded in the usage windows');
    const debit = puts(written!, 'transaction')[0];
    assert.deepEqual([debit?.type, debit?.amount, debit?.metadata], ['debit', 250, { run_id: RUN_ID }]);

    assert.deepEqual(
      told.ended.map((r) => [r.id, r.status]),
      [[RUN_ID, 'failed']],
    );
    assert.deepEqual(told.announced, ['run.failed']);
    assert.equal(told.machineLooks, 1, 'the machine is handed on');
  });

  test('a cancel of a queued run refused the same way (a transaction cancelled with ValidationError) leaves the queue all the same', async () => {
    mock
      .on(TransactWriteCommand)
      .rejectsOnce(cancelled('None', 'None', 'ValidationError', 'None'))
      .resolves({});
    const { endDeps } = deps();
    const run = deepRun({ status: 'queued', queue_sk: '1#x', running_since: null, started_at: null, lease_owner: null, extra_micro_usd: 0 });

    const ended = await endRun(endDeps, run, { status: 'cancelled' }, ['queued', 'running', 'waiting'], {}, NOW);

    assert.equal(ended?.status, 'failed');
    assert.match(ended?.failure?.message ?? '', /\(cancelled\)/);
    const written = transactions()[1]!;
    assert.ok(
      written.some((item) => item.Delete?.Key?.sk === '1#x'),
      'its queue entry is deleted',
    );
    assert.ok(written.some((item) => JSON.stringify(item.Update) === JSON.stringify(machineOccupancy('t').leave(ACCOUNT, MACHINE_ID))));
  });

  test('a refusal of anything else is not mistaken for one, and an end refused again is thrown, not tried forever', async () => {
    const error = throttled();
    mock.on(TransactWriteCommand).rejects(error);
    const { endDeps } = deps();
    await assert.rejects(endRun(endDeps, deepRun(), { status: 'cancelled' }, ['running'], {}, NOW), (e) => e === error);
    assert.equal(transactions().length, 1);

    mock.on(TransactWriteCommand).rejects(nestedTooDeep());
    await assert.rejects(endRun(endDeps, deepRun(), { status: 'cancelled' }, ['running'], {}, NOW), /Nesting Levels/);
    assert.equal(transactions().length, 3);
  });
});

describe('a workflow request whose end DynamoDB refuses for what it holds', () => {
  const requestId = randomUUID();
  const stored = {
    ...keys.workflowRequest(requestId),
    id: requestId,
    account_id: ACCOUNT,
    workflow_version_id: randomUUID(),
    status: 'in_progress',
    payload: nested(31),
    query: 'q',
    metadata: nested(31),
    node_count: 2,
    started_at: NOW.toISOString(),
    created_at: NOW.toISOString(),
    parent_workflow_request_id: requestId,
    parent_node_id: null,
    concurrency_slot: true,
    extra_micro_usd: 300,
  };

  test('it ends failed with internal_error, its event reduced and asked again for the new status, its slot, nodes and debit written', async () => {
    mock.on(GetCommand, { Key: keys.workflowRequest(requestId) }).resolves({ Item: stored });
    mock.on(QueryCommand).resolves({ Items: [] });
    mock.on(TransactWriteCommand).rejectsOnce(nestedTooDeep()).resolves({});
    const asked: string[] = [];
    const announced: string[] = [];
    const events = new EventBuffer();
    const deps = {
      requests: workflowRequests(table, settlements(table, { meter, wallet: billing(table) })),
      interactions: null,
      enqueue: async () => undefined,
      events,
      webhooks: {
        listening: async (_account: string, type: string) => {
          asked.push(type);
          return true;
        },
        announce: async (_account: string, event: { type: string }) => void announced.push(event.type),
      },
    };

    const ended = (await finishRequest(deps, requestId, 'completed', null, 0)) as WorkflowRequest;

    assert.equal(ended.status, 'failed');
    assert.equal(ended.error?.code, 'internal_error');
    assert.match(ended.error?.message ?? '', /\(completed\) could not be recorded/);
    assert.deepEqual(asked, ['workflow_request.completed', 'workflow_request.failed']);
    assert.deepEqual(announced, ['workflow_request.failed']);
    const [refused, written] = transactions();
    assert.equal(transactions().length, 2);
    assert.deepEqual(puts(refused!, 'account_event')[0]?.data.payload, stored.payload);

    const update = written!.find((item) => item.Update?.Key?.sk === keys.workflowRequest(requestId).sk)!.Update!;
    assert.equal(update.ExpressionAttributeValues![':status'], 'failed');
    assert.match(update.UpdateExpression!, /REMOVE concurrency_slot$/);
    const [event] = puts(written!, 'account_event');
    assert.equal(event?.type, 'workflow_request.failed');
    assert.deepEqual([event?.data.payload, event?.data.query, event?.data.metadata, event?.data.status], [{}, null, null, 'failed']);
    assert.deepEqual(written!.at(-1), releaseSlot('t', ACCOUNT));
    assert.ok(
      written!.some((item) => item.Update?.Key?.sk === keys.activityDay(ACCOUNT, ended.completed_at!.slice(0, 10)).sk),
      'its nodes count in the day',
    );
    const debit = puts(written!, 'transaction')[0];
    assert.deepEqual([debit?.type, debit?.amount], ['debit', 300]);
  });
});
