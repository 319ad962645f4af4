import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, test } from 'vitest';
import { pageEvents } from '#events/pages.js';
import { keys } from '#platform/table/keys.js';
import { RUN_EVENT_RETENTION_SECONDS } from '#runs/events.js';
import type { Run, RunEventData } from '#runs/model.js';
import { runsRepo } from '#runs/runs-repository.js';
import { cancelled, conditionFailed, mockedDynamoDb, throttled } from '../helpers/dynamodb-mock.js';
import { runFixture } from '../helpers/run-fixture.js';

const { mock, table } = mockedDynamoDb();
const repo = runsRepo(table);

const ACCOUNT = randomUUID();
const RUN_ID = 'run_000000001AAAAAAAAAAAAAAAA';

const runOf = (fields: Partial<Run> = {}): Run =>
  runFixture({
    id: RUN_ID,
    account_id: ACCOUNT,
    harness_id: 'h_000000001AAAAAAAAAAAAAAAA',
    machine_id: 'mch_000000001AAAAAAAAAAAAAAAA',
    harness: { model: 'local/echo', instructions: 'prompt.md', max_turns: 10, tools: [], mcp_servers: [] },
    event_seq: 4,
    lease_owner: 'worker-1',
    lease_until: 1_000,
    running_since: '2026-01-01T00:00:01.000Z',
    started_at: '2026-01-01T00:00:01.000Z',
    ...fields,
  });
const stored = (run: Run) => ({ ...keys.run(run.id), ...keys.runIndex(run.account_id, run.created_at, run.id), entity: 'run', ...run });
const status = (value: Run['status']): RunEventData => ({ type: 'run.status', data: { status: value } });
const transactions = () => mock.commandCalls(TransactWriteCommand).map((call) => call.args[0].input.TransactItems!);

beforeEach(() => mock.reset());

describe('get and getOwned', () => {
  test('a consistent read of the run item, returned without keys or entity; a malformed id reads nothing', async () => {
    const run = runOf();
    mock.on(GetCommand).resolves({ Item: stored(run) });
    assert.deepEqual(await repo.get(run.id), run);
    assert.deepEqual(mock.commandCalls(GetCommand)[0]!.args[0].input, { TableName: 't', Key: keys.run(run.id), ConsistentRead: true });
    for (const id of ['', 'run_1', `${run.id}x`, 'h_000000001AAAAAAAAAAAAAAAA']) assert.equal(await repo.get(id), undefined);
    assert.equal(mock.commandCalls(GetCommand).length, 1);
  });

  test('another account’s run reads as none, like an unknown one', async () => {
    mock.on(GetCommand).resolves({ Item: stored(runOf()) });
    assert.equal((await repo.getOwned(ACCOUNT, RUN_ID))?.id, RUN_ID);
    assert.equal(await repo.getOwned(randomUUID(), RUN_ID), undefined);
    mock.on(GetCommand).resolves({});
    assert.equal(await repo.getOwned(ACCOUNT, RUN_ID), undefined);
  });
});

describe('create', () => {
  test('one transaction: the run with its index keys and event_seq, its first event page from seq 1, then the placing items', async () => {
    mock.on(TransactWriteCommand).resolves({});
    const run = runOf({ status: 'queued', event_seq: 0, lease_owner: null, lease_until: 0 });
    const placing = repo.queueEntryPut(run, 1).item;
    assert.equal(await repo.create(run, [status('queued')], [placing]), true);
    const [[runPut, pagePut, entry, ...rest]] = transactions() as [NonNullable<ReturnType<typeof transactions>[number]>];
    assert.equal(rest.length, 0);
    assert.deepEqual(runPut?.Put?.Item, { ...stored(run), event_seq: 1 });
    assert.equal(runPut?.Put?.ConditionExpression, 'attribute_not_exists(pk)');
    const page = pagePut?.Put?.Item as Record<string, unknown>;
    assert.deepEqual([page.pk, page.sk], [keys.runEvent(run.id, 1).pk, keys.runEvent(run.id, 1).sk]);
    assert.deepEqual([page.entity, page.first_seq, page.last_seq], ['run_event_page', 1, 1]);
    assert.deepEqual(
      pageEvents<unknown>(page).map((e) => [e.seq, e.data]),
      [[1, status('queued')]],
    );
    // Pages expire with the run events' retention (a cursor older than that answers 410).
    assert.ok(Math.abs((page.ttl as number) - (Date.now() / 1000 + RUN_EVENT_RETENTION_SECONDS)) < 60);
    assert.equal(pagePut?.Put?.ConditionExpression, 'attribute_not_exists(pk)');
    assert.deepEqual(entry, placing);
  });

  test('a refused condition is false; any other failure propagates', async () => {
    mock.on(TransactWriteCommand).rejects(cancelled('None', 'None', 'ConditionalCheckFailed'));
    assert.equal(await repo.create(runOf({ event_seq: 0 }), [status('queued')], []), false);
    const error = throttled();
    mock.on(TransactWriteCommand).rejects(error);
    await assert.rejects(repo.create(runOf({ event_seq: 0 }), [status('queued')], []), (e) => e === error);
  });
});

describe('changeItems', () => {
  test('the guarded update, the page of its events at the next seq, then the extra items; changed is the run as they leave it', () => {
    const run = runOf({ event_seq: 4 });
    const extra = repo.queueEntryDelete(run.machine_id, '1#x');
    const change = {
      set: { status: 'completed' as const, output: 'done' },
      from: ['running' as const],
      leaseOwner: 'worker-1',
      events: [{ type: 'message', data: { role: 'assistant', text: 'done' } }, status('completed')] as RunEventData[],
      items: [extra],
    };
    const [update, page, item, ...rest] = repo.changeItems(run, change);
    assert.deepEqual(repo.changed(run, change), { ...run, status: 'completed', output: 'done', event_seq: 6 });
    assert.equal(rest.length, 0);
    assert.deepEqual(update?.Update?.Key, keys.run(run.id));
    assert.equal(update?.Update?.UpdateExpression, 'SET #status = :status, #output = :output, #event_seq = :event_seq');
    assert.equal(update?.Update?.ConditionExpression, '#status IN (:from0) AND event_seq = :seen_seq AND lease_owner = :lease_owner_seen');
    assert.deepEqual(update?.Update?.ExpressionAttributeValues, {
      ':status': 'completed',
      ':output': 'done',
      ':event_seq': 6,
      ':from0': 'running',
      ':seen_seq': 4,
      ':lease_owner_seen': 'worker-1',
    });
    const pageItem = page?.Put?.Item as Record<string, unknown>;
    assert.deepEqual([pageItem.sk, pageItem.first_seq, pageItem.last_seq], [keys.runEvent(run.id, 5).sk, 5, 6]);
    assert.equal(page?.Put?.ConditionExpression, 'attribute_not_exists(pk)');
    assert.deepEqual(item, extra);
  });

  test('a change that waits for an interaction is conditioned on it; one without events writes no page', () => {
    const run = runOf({ status: 'waiting', wait: { interaction_id: 'i-1', type: 'answer', turn: 0, call: 0 } });
    const [update, ...rest] = repo.changeItems(run, { set: { wait: null }, from: ['waiting', 'queued'], waitingFor: 'i-1', events: [] });
    assert.equal(rest.length, 0);
    assert.equal(update?.Update?.ConditionExpression, '#status IN (:from0, :from1) AND event_seq = :seen_seq AND #wait.interaction_id = :waiting_for');
    assert.equal(update?.Update?.ExpressionAttributeNames?.['#wait'], 'wait');
    assert.equal(update?.Update?.ExpressionAttributeValues?.[':waiting_for'], 'i-1');
    assert.equal(update?.Update?.ExpressionAttributeValues?.[':event_seq'], run.event_seq);
  });
});

describe('the lease', () => {
  test('takeLease sets owner and expiry while running and the lease is expired, free or already the owner’s', async () => {
    mock.on(UpdateCommand).resolves({});
    assert.equal(await repo.takeLease(RUN_ID, 'worker-2', 61_000, 1_000), true);
    const input = mock.commandCalls(UpdateCommand)[0]!.args[0].input;
    assert.deepEqual(input.Key, keys.run(RUN_ID));
    assert.equal(input.UpdateExpression, 'SET lease_owner = :owner, lease_until = :until');
    assert.equal(input.ConditionExpression, '#status = :running AND (lease_until < :now OR lease_owner = :owner OR attribute_type(lease_owner, :null_type))');
    assert.deepEqual(input.ExpressionAttributeValues, { ':owner': 'worker-2', ':until': 61_000, ':now': 1_000, ':running': 'running', ':null_type': 'NULL' });
  });

  test('takeLease refused (a live lease of another worker, or not running) is false; other failures propagate', async () => {
    mock.on(UpdateCommand).rejects(conditionFailed());
    assert.equal(await repo.takeLease(RUN_ID, 'worker-2', 2, 1), false);
    const error = throttled();
    mock.on(UpdateCommand).rejects(error);
    await assert.rejects(repo.takeLease(RUN_ID, 'worker-2', 2, 1), (e) => e === error);
  });

  test('releaseLease expires the lease only if still the owner’s, and a lost lease is no error', async () => {
    mock.on(UpdateCommand).resolves({});
    await repo.releaseLease(RUN_ID, 'worker-1');
    const input = mock.commandCalls(UpdateCommand)[0]!.args[0].input;
    assert.deepEqual([input.UpdateExpression, input.ConditionExpression], ['SET lease_until = :zero', 'lease_owner = :owner']);
    assert.deepEqual(input.ExpressionAttributeValues, { ':owner': 'worker-1', ':zero': 0 });
    mock.on(UpdateCommand).rejects(conditionFailed());
    await repo.releaseLease(RUN_ID, 'worker-1');
    const error = throttled();
    mock.on(UpdateCommand).rejects(error);
    await assert.rejects(repo.releaseLease(RUN_ID, 'worker-1'), (e) => e === error);
  });

  test('pulse reads status and lease holder only, consistently; no holder reads as null, no run as undefined', async () => {
    mock.on(GetCommand).resolves({ Item: { status: 'running', lease_owner: 'worker-1' } });
    assert.deepEqual(await repo.pulse(RUN_ID), { status: 'running', lease_owner: 'worker-1' });
    const input = mock.commandCalls(GetCommand)[0]!.args[0].input;
    assert.deepEqual(input, {
      TableName: 't',
      Key: keys.run(RUN_ID),
      ProjectionExpression: '#status, lease_owner',
      ExpressionAttributeNames: { '#status': 'status' },
      ConsistentRead: true,
    });
    mock.on(GetCommand).resolves({ Item: { status: 'cancelled' } });
    assert.deepEqual(await repo.pulse(RUN_ID), { status: 'cancelled', lease_owner: null });
    mock.on(GetCommand).resolves({});
    assert.equal(await repo.pulse(RUN_ID), undefined);
  });
});

describe('steps', () => {
  test('every step of the run’s partition, consistently, page after page, without the table’s attributes', async () => {
    const turn = { ...keys.runStep(RUN_ID, 0), entity: 'run_step', turn: 0, content: '', tool_calls: [] };
    const result = { ...keys.runStep(RUN_ID, 0, 0), entity: 'run_step', turn: 0, call: 0, text: 'x' };
    mock
      .on(QueryCommand)
      .resolvesOnce({ Items: [turn], LastEvaluatedKey: { pk: turn.pk, sk: turn.sk } })
      .resolvesOnce({ Items: [result] });
    assert.deepEqual(await repo.steps(RUN_ID), [
      { turn: 0, content: '', tool_calls: [] },
      { turn: 0, call: 0, text: 'x' },
    ]);
    const [first, second] = mock.commandCalls(QueryCommand).map((c) => c.args[0].input);
    assert.equal(first?.KeyConditionExpression, 'pk = :pk AND begins_with(sk, :prefix)');
    assert.deepEqual(first?.ExpressionAttributeValues, { ':pk': keys.runStepPrefix(RUN_ID).pk, ':prefix': keys.runStepPrefix(RUN_ID).skPrefix });
    assert.equal(first?.ConsistentRead, true);
    assert.deepEqual(second?.ExclusiveStartKey, { pk: turn.pk, sk: turn.sk });
  });

  test('a step is put once, at the key of its turn and call', () => {
    const put = repo.stepPut(RUN_ID, { turn: 2, call: 1, text: 'r' }).Put!;
    assert.deepEqual(put.Item, { ...keys.runStep(RUN_ID, 2, 1), entity: 'run_step', turn: 2, call: 1, text: 'r' });
    assert.equal(put.ConditionExpression, 'attribute_not_exists(pk)');
    assert.notEqual(keys.runStep(RUN_ID, 2).sk, keys.runStep(RUN_ID, 2, 0).sk);
  });
});

describe('the machine queue', () => {
  test('the head is the first entry of the machine’s queue partition, read consistently', async () => {
    const run = runOf({ status: 'queued' });
    const { sk } = repo.queueEntryPut(run, 1);
    mock.on(QueryCommand).resolves({ Items: [{ pk: keys.machineQueuePartition(run.machine_id), sk, run_id: run.id }] });
    assert.deepEqual(await repo.queueHead(run.machine_id), { run_id: run.id, sk });
    const input = mock.commandCalls(QueryCommand)[0]!.args[0].input;
    assert.deepEqual(
      [input.KeyConditionExpression, input.ExpressionAttributeValues, input.ConsistentRead, input.Limit],
      ['pk = :pk', { ':pk': keys.machineQueuePartition(run.machine_id) }, true, 1],
    );
    mock.on(QueryCommand).resolves({ Items: [] });
    assert.equal(await repo.queueHead(run.machine_id), undefined);
  });

  test('entries are keyed by priority then creation; put once, deleted only if there', () => {
    const run = runOf({ status: 'queued' });
    const normal = repo.queueEntryPut(run, 1);
    const interrupting = repo.queueEntryPut(run, 0);
    assert.deepEqual(normal.item.Put?.Item, {
      ...keys.machineQueueEntry(run.machine_id, 1, run.created_at, run.id),
      entity: 'machine_queue_entry',
      run_id: run.id,
    });
    assert.equal(normal.sk, keys.machineQueueEntry(run.machine_id, 1, run.created_at, run.id).sk);
    assert.equal(normal.item.Put?.ConditionExpression, 'attribute_not_exists(pk)');
    // An interrupting run sorts before every other waiting run, whenever it was created.
    assert.ok(interrupting.sk < repo.queueEntryPut({ ...run, created_at: '2000-01-01T00:00:00.000Z' }, 1).sk);
    const remove = repo.queueEntryDelete(run.machine_id, normal.sk).Delete!;
    assert.deepEqual(remove.Key, { pk: keys.machineQueuePartition(run.machine_id), sk: normal.sk });
    assert.equal(remove.ConditionExpression, 'attribute_exists(pk)');
  });
});

describe('chat turns', () => {
  test('the newest turns of the chat, read newest first and answered oldest first', async () => {
    mock.on(QueryCommand).resolves({
      Items: [
        { input: 'second', output: 'b' },
        { input: 'first', output: 'a' },
      ],
    });
    assert.deepEqual(await repo.chatTurns('chat-1', 20), [
      { input: 'first', output: 'a' },
      { input: 'second', output: 'b' },
    ]);
    const input = mock.commandCalls(QueryCommand)[0]!.args[0].input;
    assert.deepEqual(input.ExpressionAttributeValues, { ':pk': keys.chatRunTurnPrefix('chat-1').pk, ':prefix': keys.chatRunTurnPrefix('chat-1').skPrefix });
    assert.deepEqual([input.ScanIndexForward, input.Limit, input.ConsistentRead], [false, 20, true]);
  });

  test('a finished run is put in its chat’s partition with its input and output', () => {
    const run = runOf({ chat_id: 'chat-1', input: { a: 1 } });
    assert.deepEqual(repo.chatTurnPut(run, 'out').Put?.Item, {
      ...keys.chatRunTurn('chat-1', run.created_at, run.id),
      entity: 'chat_run_turn',
      run_id: run.id,
      input: { a: 1 },
      output: 'out',
    });
  });
});

describe('list', () => {
  const item = (n: number, fields: Partial<Run> = {}) =>
    stored(runOf({ id: `run_00000000${n}AAAAAAAAAAAAAAAA`, created_at: `2026-01-01T00:00:0${n}.000Z`, ...fields }));

  test('the account’s runs on gsi1, newest first, filtered on the given fields, one more than the page to prove has_more', async () => {
    mock.on(QueryCommand).resolves({ Items: [item(9), item(8), item(7)], LastEvaluatedKey: { pk: 'x' } });
    const page = await repo.list(ACCOUNT, { status: 'completed', harness_id: 'h_1' }, { limit: 2 });
    assert.deepEqual(
      page.runs.map((r) => r.id),
      [item(9).id, item(8).id],
    );
    assert.ok(page.runs.every((r) => !('pk' in r) && !('gsi1pk' in r) && !('entity' in r)));
    assert.deepEqual(page.next, { gsi1sk: item(8).gsi1sk, pk: item(8).pk, sk: item(8).sk });
    const input = mock.commandCalls(QueryCommand)[0]!.args[0].input;
    assert.deepEqual(
      [input.IndexName, input.KeyConditionExpression, input.ScanIndexForward, input.Limit, input.ExclusiveStartKey],
      ['gsi1', 'gsi1pk = :g', false, 3, undefined],
    );
    assert.equal(input.FilterExpression, '#status = :status AND #harness_id = :harness_id');
    assert.deepEqual(input.ExpressionAttributeValues, { ':g': keys.runIndexPartition(ACCOUNT), ':status': 'completed', ':harness_id': 'h_1' });
  });

  test('a position starts after it in the caller’s partition; a filtered page reads on until full; the last page has no next', async () => {
    mock
      .on(QueryCommand)
      .resolvesOnce({ Items: [item(5)], LastEvaluatedKey: { gsi1pk: 'g', gsi1sk: item(5).gsi1sk, pk: item(5).pk, sk: item(5).sk } })
      .resolvesOnce({ Items: [item(4)] });
    const after = { gsi1sk: item(6).gsi1sk, pk: item(6).pk, sk: item(6).sk };
    const page = await repo.list(ACCOUNT, { status: 'completed' }, { limit: 2, after });
    assert.deepEqual(
      page.runs.map((r) => r.id),
      [item(5).id, item(4).id],
    );
    assert.equal(page.next, undefined);
    const [first, second] = mock.commandCalls(QueryCommand).map((c) => c.args[0].input);
    assert.deepEqual(first?.ExclusiveStartKey, { gsi1pk: keys.runIndexPartition(ACCOUNT), ...after });
    assert.ok(second?.ExclusiveStartKey);
  });
});
