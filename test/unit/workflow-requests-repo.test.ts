import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { BatchWriteCommand, GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeEach, describe, test, vi } from 'vitest';
import { activityUpdate, billing } from '#billing/index.js';
import type { NodeExecution, WorkflowRequest } from '#execution/model.js';
import { blockedNode, nodeExecutionId } from '#execution/node-skeleton.js';
import { EVENT_RETENTION_SECONDS } from '#execution/request-log.js';
import { workflowRequests } from '#execution/workflow-requests.js';
import { workflowRequestsRepo } from '#execution/workflow-requests-repository.js';
import { keys } from '#platform/table/keys.js';
import { settlements } from '#settlement/index.js';
import type { UsageMeter } from '#usage/index.js';
import { cancelled, conditionFailed, mockedDynamoDb, throttled } from '../helpers/dynamodb-mock.js';

const { mock, table } = mockedDynamoDb();
const repo = workflowRequestsRepo(table);
/** The requests as the engine changes them, their settlement recording with `record`. */
const store = (record: UsageMeter['record'] = async () => assert.fail('nothing is recorded')) =>
  workflowRequests(table, settlements(table, { meter: { record }, wallet: billing(table) }));

const accountId = randomUUID();
const requestId = randomUUID();
const request = { id: requestId, account_id: accountId, created_at: '2026-01-01T00:00:00.000Z', status: 'pending' } as WorkflowRequest;
const node = (nodeId: string, status = 'pending', extra: Record<string, unknown> = {}) =>
  ({ id: `x-${nodeId}`, workflow_request_id: requestId, node_id: nodeId, status, ...extra }) as unknown as NodeExecution;
const nodeItem = (nodeId: string, status = 'pending', extra: Record<string, unknown> = {}) => ({
  ...keys.nodeExecution(requestId, nodeId),
  entity: 'node_execution',
  ...node(nodeId, status, extra),
});
const updateInput = (n = 0) => mock.commandCalls(UpdateCommand)[n]!.args[0].input;

beforeEach(() => mock.reset());
afterEach(() => vi.useRealTimers());

describe('create', () => {
  const transactItems = () => mock.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;

  test('puts the request with its index entry only if absent, counted in its day, in one transaction; then every node execution', async () => {
    mock.on(TransactWriteCommand).resolves({});
    mock.on(BatchWriteCommand).resolves({});
    await store().create(request, [node('a'), node('b')]);
    const [put, activity, ...rest] = transactItems();
    assert.deepEqual(put!.Put!.Item, {
      ...keys.workflowRequest(requestId),
      ...keys.workflowRequestIndex(accountId, request.created_at, requestId),
      entity: 'workflow_request',
      ...request,
    });
    assert.equal(put!.Put!.ConditionExpression, 'attribute_not_exists(pk)');
    assert.deepEqual(activity, activityUpdate('t', accountId, '2026-01-01', { requests: 1 }));
    assert.deepEqual(rest, []);
    assert.equal(mock.commandCalls(PutCommand).length, 0);
    const items = mock.commandCalls(BatchWriteCommand)[0]!.args[0].input.RequestItems!.t!.map((r) => r.PutRequest!.Item);
    assert.deepEqual(items, [nodeItem('a'), nodeItem('b')]);
  });

  test('the nodes left unwritten are listed in one skeleton item under the node prefix', async () => {
    mock.on(TransactWriteCommand).resolves({});
    mock.on(BatchWriteCommand).resolves({});
    await store().create({ ...request, workflow_version_id: 'v1' }, [node('a')], [{ node_id: 'b', node_type: 'http', parent_count: 1 }]);
    const items = mock.commandCalls(BatchWriteCommand)[0]!.args[0].input.RequestItems!.t!.map((r) => r.PutRequest!.Item!);
    assert.deepEqual(items[0], {
      ...keys.nodeSkeleton(requestId),
      entity: 'node_skeleton',
      workflow_version_id: 'v1',
      created_at: request.created_at,
      nodes: [['b', 'http', 1]],
    });
    assert.ok(items[0]!.sk === keys.nodeExecutionPrefix(requestId).skPrefix, 'read along by every Query of the node items');
    assert.deepEqual(items[1], nodeItem('a'));
  });

  test('an existing request id refuses the transaction: a conflict, not counted, no node written over it', async () => {
    mock.on(TransactWriteCommand).rejects(cancelled('ConditionalCheckFailed', 'None'));
    await assert.rejects(store().create(request, [node('a')]), { code: 'workflow_request_exists' });
    assert.equal(mock.commandCalls(TransactWriteCommand).length, 1);
    assert.equal(mock.commandCalls(BatchWriteCommand).length, 0);
  });

  test('a transaction cancelled only by a concurrent one on the day counter is sent again', async () => {
    mock.on(TransactWriteCommand).rejectsOnce(cancelled('None', 'TransactionConflict')).resolves({});
    mock.on(BatchWriteCommand).resolves({});
    await store().create(request, [node('a')]);
    assert.equal(mock.commandCalls(TransactWriteCommand).length, 2);
  });
});

describe('endRequest', () => {
  const stored = { ...keys.workflowRequest(requestId), ...request, status: 'in_progress', node_count: 3 };

  test('ends the request under its status guard and counts its node executions in the day it ends, in one transaction; answers the item as written', async () => {
    mock
      .on(GetCommand)
      .resolvesOnce({ Item: stored })
      .resolvesOnce({ Item: { ...stored, status: 'completed', completed_at: '2026-01-02T00:00:01.000Z' } });
    mock.on(QueryCommand).resolves({ Items: [] });
    mock.on(TransactWriteCommand).resolves({});
    const ended = await store().endRequest(requestId, ['pending', 'in_progress'], { status: 'completed', completed_at: '2026-01-02T00:00:01.000Z' });
    assert.deepEqual([ended?.status, ended?.completed_at, ended?.node_count], ['completed', '2026-01-02T00:00:01.000Z', 3]);
    const [update, activity, ...rest] = mock.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    assert.deepEqual(update!.Update!.Key, keys.workflowRequest(requestId));
    assert.equal(update!.Update!.ConditionExpression, '#status IN (:from0, :from1)');
    assert.deepEqual(activity, activityUpdate('t', accountId, '2026-01-02', { nodes: 3 }));
    assert.deepEqual(rest, []);
    for (const call of mock.commandCalls(GetCommand)) assert.equal(call.args[0].input.ConsistentRead, true);
  });

  test('a request already ended (read, or by the condition) is undefined and counts nothing', async () => {
    mock.on(GetCommand).resolves({ Item: { ...stored, status: 'failed' } });
    assert.equal(await store().endRequest(requestId, ['in_progress'], { status: 'completed' }), undefined);
    assert.equal(mock.commandCalls(TransactWriteCommand).length, 0);
    mock.reset();
    mock.on(GetCommand).resolves({ Item: stored });
    mock.on(QueryCommand).resolves({ Items: [] });
    mock.on(TransactWriteCommand).rejects(cancelled('ConditionalCheckFailed', 'None'));
    assert.equal(await store().endRequest(requestId, ['in_progress'], { status: 'completed' }), undefined);
  });

  test('the fees its nodes left unrecorded go into the windows, the request total and the day, in the same transaction', async () => {
    // Prepare
    const windows = { Update: { TableName: 't', Key: keys.usageWindows(accountId), UpdateExpression: 'SET x = :x' } };
    const recorded: number[] = [];
    const metered = store(async (_account, cost) => {
      recorded.push(cost);
      return { item: windows, extraMicroUsd: 0 };
    });
    mock.on(GetCommand).resolves({ Item: { ...stored, cost_micro_usd: 5000 } });
    mock.on(QueryCommand).resolves({
      Items: [{ status: 'completed', unrecorded_micro_usd: 100 }, { status: 'completed', unrecorded_micro_usd: 100 }, { status: 'completed' }],
    });
    mock.on(TransactWriteCommand).resolves({});
    // Act
    await metered.endRequest(requestId, ['in_progress'], { status: 'completed', completed_at: '2026-01-02T00:00:01.000Z' });
    // Assert
    assert.deepEqual(recorded, [200]);
    const query = mock.commandCalls(QueryCommand)[0]!.args[0].input;
    assert.equal(query.ConsistentRead, true);
    const [update, window, activity, ...rest] = mock.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    assert.match(update!.Update!.UpdateExpression!, / ADD cost_micro_usd :fees, extra_micro_usd :fees_extra$/);
    assert.deepEqual([update!.Update!.ExpressionAttributeValues![':fees'], update!.Update!.ExpressionAttributeValues![':fees_extra']], [200, 0]);
    assert.deepEqual(activity, activityUpdate('t', accountId, '2026-01-02', { nodes: 3, cost_micro_usd: 5200 }));
    assert.deepEqual(window, windows);
    assert.deepEqual(rest, []);
  });

  test('a window opened meanwhile refuses the end: the windows are read again and the end retried', async () => {
    const windows = { Update: { TableName: 't', Key: keys.usageWindows(accountId), UpdateExpression: 'SET x = :x' } };
    let reads = 0;
    const metered = store(async () => {
      reads++;
      return { item: windows, extraMicroUsd: 0 };
    });
    mock.on(GetCommand).resolves({ Item: stored });
    mock.on(QueryCommand).resolves({ Items: [{ status: 'completed', unrecorded_micro_usd: 100 }] });
    mock
      .on(TransactWriteCommand)
      .rejectsOnce(cancelled('None', 'ConditionalCheckFailed', 'None'))
      .resolves({});
    assert.ok(await metered.endRequest(requestId, ['in_progress'], { status: 'completed' }));
    assert.equal(reads, 2);
    assert.equal(mock.commandCalls(TransactWriteCommand).length, 2);
  });
});

describe('settleNode with a cost', () => {
  const fee = { accountId, costMicroUsd: 100, inputTokens: 0, outputTokens: 0 };

  test('a fee alone settles in one UpdateItem, kept on the node as unrecorded for the request end', async () => {
    mock.on(UpdateCommand).resolves({ Attributes: {} });
    assert.equal(await store().settleNode(requestId, 'a', ['in_progress'], { status: 'completed' }, 1, undefined, fee), true);
    assert.equal(mock.commandCalls(TransactWriteCommand).length, 0);
    const values = updateInput().ExpressionAttributeValues!;
    assert.ok(Object.values(values).includes(100), 'unrecorded_micro_usd is set to the fee');
    assert.ok(
      Object.values(values).some((v) => (v as { cost_micro_usd?: number })?.cost_micro_usd === 100),
      'usage carries the fee',
    );
  });

  test('a model call settles in one transaction with the windows and the request totals', async () => {
    const windows = { Update: { TableName: 't', Key: keys.usageWindows(accountId), UpdateExpression: 'SET x = :x' } };
    const metered = store(async () => ({ item: windows, extraMicroUsd: 0 }));
    mock.on(TransactWriteCommand).resolves({});
    const cost = { ...fee, costMicroUsd: 900, inputTokens: 10, outputTokens: 20 };
    assert.equal(await metered.settleNode(requestId, 'a', ['in_progress'], { status: 'completed' }, 1, undefined, cost), true);
    const [nodeUpdate, totals, window] = mock.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    assert.deepEqual(nodeUpdate!.Update!.Key, keys.nodeExecution(requestId, 'a'));
    assert.deepEqual(window, windows);
    assert.deepEqual(totals!.Update!.ExpressionAttributeValues, { ':cost': 900, ':extra': 0, ':in': 10, ':out': 20 });
    assert.equal(mock.commandCalls(UpdateCommand).length, 0);
  });
});

describe('reads', () => {
  test('get and getNode read consistently by key, without keys or entity', async () => {
    mock.on(GetCommand).resolves({});
    mock.on(GetCommand, { Key: keys.workflowRequest(requestId) }).resolves({
      Item: {
        ...keys.workflowRequestIndex(accountId, 'c', requestId),
        ...keys.workflowRequest(requestId),
        entity: 'workflow_request',
        ...request,
      },
    });
    mock.on(GetCommand, { Key: keys.nodeExecution(requestId, 'a') }).resolves({ Item: nodeItem('a') });
    assert.deepEqual(await repo.get(requestId), request);
    assert.deepEqual(await repo.getNode(requestId, 'a'), node('a'));
    assert.ok(mock.commandCalls(GetCommand).every((c) => c.args[0].input.ConsistentRead === true && c.args[0].input.TableName === 't'));
    assert.equal(await repo.getNode(requestId, 'missing'), undefined);
  });

  test('listNodes pages through the NODE# range consistently and meters each page when asked', async () => {
    mock
      .on(QueryCommand)
      .resolvesOnce({ Items: [nodeItem('a')], LastEvaluatedKey: keys.nodeExecution(requestId, 'a'), ConsumedCapacity: { CapacityUnits: 2 } })
      .resolvesOnce({ Items: [nodeItem('b')], ConsumedCapacity: { CapacityUnits: 0.5 } });
    const units: number[] = [];
    assert.deepEqual(await repo.listNodes(requestId, (u) => units.push(u)), [node('a'), node('b')]);
    assert.deepEqual(units, [2, 0.5]);
    const calls = mock.commandCalls(QueryCommand).map((c) => c.args[0].input);
    const prefix = keys.nodeExecutionPrefix(requestId);
    assert.equal(calls[0]!.KeyConditionExpression, 'pk = :pk AND begins_with(sk, :prefix)');
    assert.deepEqual(calls[0]!.ExpressionAttributeValues, { ':pk': prefix.pk, ':prefix': prefix.skPrefix });
    assert.deepEqual(
      calls.map((c) => [c.ConsistentRead, c.ReturnConsumedCapacity, c.ExclusiveStartKey]),
      [
        [true, 'TOTAL', undefined],
        [true, 'TOTAL', keys.nodeExecution(requestId, 'a')],
      ],
    );
  });

  test('outcome: open while any node is open, else failed, stopped or completed', async () => {
    const cases: Array<[string[], unknown]> = [
      [['completed', 'in_progress'], { state: 'open' }],
      [['completed', 'failed', 'stopped'], { state: 'failed', error: { code: 'node_failed', message: 'Node n1 failed.' }, fees: 200 }],
      [['skipped', 'stopped'], { state: 'stopped', fees: 0 }],
      [['completed', 'skipped'], { state: 'completed', fees: 100 }],
    ];
    for (const [statuses, expected] of cases) {
      mock.reset();
      // The settled nodes' fees left to the end are summed with the outcome (100 each on completed and failed ones).
      const fee = (status: string) => (['completed', 'failed'].includes(status) ? { unrecorded_micro_usd: 100 } : {});
      mock.on(QueryCommand).resolves({ Items: statuses.map((status, i) => ({ node_id: `n${i}`, status, error: null, ...fee(status) })) });
      assert.deepEqual(await repo.outcome(requestId), expected, statuses.join());
    }
    const input = mock.commandCalls(QueryCommand)[0]!.args[0].input;
    assert.deepEqual(
      [input.ProjectionExpression, input.ConsistentRead, input.ExpressionAttributeValues?.[':pk']],
      ['#status, #error, node_id, nodes, unrecorded_micro_usd', true, keys.nodeExecutionPrefix(requestId).pk],
    );
  });

  test('a node the skeleton lists without an item yet is open; once every listed node has a settled item the outcome stands', async () => {
    const skeleton = { nodes: [['b', 'transform', 1]] };
    mock.on(QueryCommand).resolves({ Items: [skeleton, { node_id: 'a', status: 'completed' }] });
    assert.deepEqual(await repo.outcome(requestId), { state: 'open' });
    mock.on(QueryCommand).resolves({ Items: [skeleton, { node_id: 'a', status: 'completed' }, { node_id: 'b', status: 'skipped' }] });
    assert.deepEqual(await repo.outcome(requestId), { state: 'completed', fees: 0 });
  });

  test('listNodes builds the skeleton’s unwritten nodes as blocked, with the id any writer will give them, in node id order', async () => {
    const skeleton = { ...keys.nodeSkeleton(requestId), entity: 'node_skeleton', workflow_version_id: 'v1', created_at: 'c', nodes: [['b', 'http', 2]] };
    mock.on(QueryCommand).resolves({ Items: [skeleton, nodeItem('c')] });
    const [b, c] = await repo.listNodes(requestId);
    assert.deepEqual(c, node('c'));
    assert.deepEqual(b, blockedNode({ id: requestId, workflow_version_id: 'v1', created_at: 'c' }, { node_id: 'b', node_type: 'http', parent_count: 2 }));
    assert.equal(b!.id, nodeExecutionId(requestId, 'b'));
    assert.deepEqual([b!.status, b!.unwritten, b!.created_at], ['blocked', true, 'c']);
  });

  test('outcome reads every page before concluding, and keeps the failed node’s own error', async () => {
    const error = { code: 'boom', message: 'm' };
    mock
      .on(QueryCommand)
      .resolvesOnce({ Items: [{ node_id: 'a', status: 'completed' }], LastEvaluatedKey: keys.nodeExecution(requestId, 'a') })
      .resolvesOnce({ Items: [{ node_id: 'b', status: 'failed', error }] });
    assert.deepEqual(await repo.outcome(requestId), { state: 'failed', error, fees: 0 });
    assert.deepEqual(mock.commandCalls(QueryCommand)[1]!.args[0].input.ExclusiveStartKey, keys.nodeExecution(requestId, 'a'));
  });
});

describe('guarded transitions', () => {
  test('transitionNode sets the fields under a status condition, with lease and attempt when asked', async () => {
    mock.on(UpdateCommand).resolves({ Attributes: nodeItem('a', 'in_progress') });
    const claimed = await repo.transitionNode(
      requestId,
      'a',
      ['pending', 'in_progress'],
      { status: 'in_progress', lease_expires_at: 50 },
      { incrementAttempt: true, leaseExpiredBefore: 10 },
    );
    assert.deepEqual(claimed, node('a', 'in_progress'));
    const input = updateInput();
    assert.deepEqual(input.Key, keys.nodeExecution(requestId, 'a'));
    assert.equal(input.UpdateExpression, 'SET #status = :status, #lease_expires_at = :lease_expires_at ADD attempt_count :one');
    assert.equal(input.ConditionExpression, '(#status IN (:from0, :from1)) AND (attribute_not_exists(#lease) OR #lease < :leaseNow)');
    assert.deepEqual(input.ExpressionAttributeNames, { '#status': 'status', '#lease_expires_at': 'lease_expires_at', '#lease': 'lease_expires_at' });
    assert.deepEqual(input.ExpressionAttributeValues, {
      ':status': 'in_progress',
      ':lease_expires_at': 50,
      ':from0': 'pending',
      ':from1': 'in_progress',
      ':leaseNow': 10,
      ':one': 1,
    });
    assert.equal(input.ReturnValues, 'ALL_NEW');
  });

  test('settleNode guards on status and attempt: true when it wrote, false when the condition failed', async () => {
    mock
      .on(UpdateCommand)
      .resolvesOnce({ Attributes: nodeItem('a', 'completed') })
      .rejectsOnce(conditionFailed());
    assert.equal(await repo.settleUnmetered({ requestId, nodeId: 'a', from: ['in_progress'], set: { status: 'completed', output_data: 1 }, attempt: 3 }), true);
    assert.equal(
      await repo.settleUnmetered({ requestId, nodeId: 'a', from: ['in_progress'], set: { status: 'completed', output_data: 1 }, attempt: 3 }),
      false,
    );
    const input = updateInput();
    assert.deepEqual(input.Key, keys.nodeExecution(requestId, 'a'));
    assert.equal(input.ConditionExpression, '#status IN (:from0) AND #attempt = :attempt');
    assert.deepEqual([input.ExpressionAttributeNames?.['#attempt'], input.ExpressionAttributeValues?.[':attempt']], ['attempt_count', 3]);
  });

  test('transitionRequest guards the request item on its status; a failed condition (or cancellation) is undefined', async () => {
    mock.on(UpdateCommand).resolvesOnce({ Attributes: { ...keys.workflowRequest(requestId), ...request, status: 'in_progress' } });
    assert.deepEqual(await repo.transitionRequest(requestId, ['pending'], { status: 'in_progress' }), { ...request, status: 'in_progress' });
    assert.deepEqual(updateInput().Key, keys.workflowRequest(requestId));
    assert.equal(updateInput().ConditionExpression, '#status IN (:from0)');
    for (const error of [conditionFailed(), cancelled('ConditionalCheckFailed')]) {
      mock.reset();
      mock.on(UpdateCommand).rejects(error);
      assert.equal(await repo.transitionRequest(requestId, ['pending'], { status: 'in_progress' }), undefined);
    }
  });

  test('any other failure of a guarded update propagates unchanged', async () => {
    const error = throttled();
    mock.on(UpdateCommand).rejects(error);
    await assert.rejects(repo.transitionNode(requestId, 'a', ['pending'], { status: 'in_progress' }), (e) => e === error);
    await assert.rejects(repo.settleUnmetered({ requestId, nodeId: 'a', from: ['in_progress'], set: { status: 'failed' } }), (e) => e === error);
  });

  test('markParentsDone adds the parents (and activators) as string sets to an existing child', async () => {
    mock.on(UpdateCommand).resolves({ Attributes: nodeItem('c', 'pending', { done_parents: new Set(['a', 'b']) }) });
    const child = await repo.markParentsDone(requestId, node('c', 'blocked'), ['a', 'b'], ['a']);
    assert.deepEqual(child.done_parents, new Set(['a', 'b']));
    assert.deepEqual(updateInput().Key, keys.nodeExecution(requestId, 'c'));
    assert.equal(updateInput().UpdateExpression, 'ADD done_parents :p, activated_by :a');
    assert.equal(updateInput().ConditionExpression, 'attribute_exists(pk)');
    assert.deepEqual(updateInput().ExpressionAttributeValues, { ':p': new Set(['a', 'b']), ':a': new Set(['a']) });
    await repo.markParentsDone(requestId, node('c', 'blocked'), ['b'], []);
    assert.equal(updateInput(1).UpdateExpression, 'ADD done_parents :p');
    assert.deepEqual(updateInput(1).ExpressionAttributeValues, { ':p': new Set(['b']) });
    // A written child that is missing is not created by the ADD, nor silently ignored.
    mock.on(UpdateCommand).rejects(conditionFailed());
    await assert.rejects(repo.markParentsDone(requestId, node('gone', 'blocked'), ['a'], []));
  });

  test('an unwritten child is created whole by its first mark: every field if_not_exists, the marks added', async () => {
    mock.on(UpdateCommand).resolves({ Attributes: nodeItem('c', 'blocked') });
    const unwritten = blockedNode({ id: requestId, workflow_version_id: 'v1', created_at: 'c' }, { node_id: 'c', node_type: 'transform', parent_count: 2 });
    await repo.markParentsDone(requestId, unwritten, ['a'], ['a']);
    const input = updateInput();
    assert.equal(input.ConditionExpression, undefined);
    assert.match(input.UpdateExpression!, /^SET .*#c_status = if_not_exists\(#c_status, :c_status\).* ADD done_parents :p, activated_by :a$/);
    assert.equal(input.ExpressionAttributeValues![':c_status'], 'blocked');
    assert.equal(input.ExpressionAttributeValues![':c_entity'], 'node_execution');
    assert.equal(input.ExpressionAttributeValues![':c_id'], nodeExecutionId(requestId, 'c'));
    assert.ok(!Object.values(input.ExpressionAttributeNames!).includes('unwritten'));
  });

  test('a claim of an unwritten node creates it under attribute_not_exists, or applies the status guard to the item there is', async () => {
    mock.on(UpdateCommand).resolves({ Attributes: nodeItem('c', 'in_progress') });
    const unwritten = blockedNode({ id: requestId, workflow_version_id: 'v1', created_at: 'c' }, { node_id: 'c', node_type: 'http', parent_count: 1 });
    await repo.transitionNode(requestId, 'c', ['pending', 'blocked'], { status: 'in_progress' }, { incrementAttempt: true, create: unwritten });
    const input = updateInput();
    assert.equal(input.ConditionExpression, 'attribute_not_exists(pk) OR (#status IN (:from0, :from1))');
    assert.match(input.UpdateExpression!, /^SET #status = :status, .* ADD attempt_count :one$/);
    assert.ok(!input.UpdateExpression!.includes('#c_attempt_count'), 'the attempt is only added');
    assert.ok(!input.UpdateExpression!.includes('#c_status'), 'the status is the claim’s');
  });
});

describe('appendEvents and list', () => {
  test('event pages expire EVENT_RETENTION_SECONDS after they are written; no events writes nothing', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-03-01T00:00:00.500Z'));
    assert.deepEqual(await repo.appendEvents(requestId, []), []);
    assert.equal(mock.calls().length, 0);
    mock.on(QueryCommand).resolves({ Items: [] });
    mock.on(PutCommand).resolves({});
    await repo.appendEvent(requestId, { workflow_request: { id: requestId } });
    const page = mock.commandCalls(PutCommand)[0]!.args[0].input.Item!;
    assert.deepEqual([page.pk, page.sk, page.entity], [keys.requestEvent(requestId, 1).pk, keys.requestEvent(requestId, 1).sk, 'request_event_page']);
    assert.equal(page.ttl, Math.floor(Date.parse('2026-03-01T00:00:00.500Z') / 1000) + EVENT_RETENTION_SECONDS);
  });

  test('list reads the account’s request history partition with the given filters', async () => {
    const item = {
      ...keys.workflowRequest(requestId),
      ...keys.workflowRequestIndex(accountId, request.created_at, requestId),
      entity: 'workflow_request',
      ...request,
    };
    mock.on(QueryCommand).resolves({ Items: [item, { ...item, id: 'older' }], LastEvaluatedKey: { pk: 'x' } });
    const after = { gsi1sk: 'z', pk: 'WFREQ#z', sk: 'REQUEST' };
    const page = await repo.list(accountId, { status: 'failed', chat_id: undefined }, { limit: 1, after });
    assert.deepEqual(page.requests, [request]);
    assert.deepEqual(page.next, { gsi1sk: item.gsi1sk, pk: item.pk, sk: item.sk });
    const input = mock.commandCalls(QueryCommand)[0]!.args[0].input;
    assert.deepEqual(input.ExpressionAttributeValues, { ':g': keys.workflowRequestIndexPartition(accountId), ':status': 'failed' });
    assert.deepEqual([input.IndexName, input.FilterExpression, input.ScanIndexForward, input.Limit], ['gsi1', '#status = :status', false, 2]);
    assert.deepEqual(input.ExclusiveStartKey, { gsi1pk: keys.workflowRequestIndexPartition(accountId), ...after });
  });
});
