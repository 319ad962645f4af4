import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { BatchWriteCommand, GetCommand, PutCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, test } from 'vitest';
import { activityUpdate, billing } from '#billing/index.js';
import { requestDebitId } from '#execution/end-request.js';
import type { NodeExecution, RedriveBase, WorkflowRequest } from '#execution/model.js';
import type { RequestEventsReader, WatermarkedRequest } from '#execution/request-events.js';
import { requestEventSource } from '#execution/request-stream.js';
import { workflowRequests } from '#execution/workflow-requests.js';
import { workflowRequestsRepo } from '#execution/workflow-requests-repository.js';
import { keys } from '#platform/table/keys.js';
import { settlements } from '#settlement/index.js';
import type { UsageMeter } from '#usage/index.js';
import { cancelled, conditionFailed, mockedDynamoDb } from '../helpers/dynamodb-mock.js';

const { mock, table } = mockedDynamoDb();
const repo = workflowRequestsRepo(table);
const store = (record: UsageMeter['record'] = async () => assert.fail('nothing is recorded')) =>
  workflowRequests(table, settlements(table, { meter: { record }, wallet: billing(table) }));

const accountId = randomUUID();
const requestId = randomUUID();
const request = {
  id: requestId,
  account_id: accountId,
  parent_workflow_request_id: requestId,
  created_at: '2026-01-01T00:00:00.000Z',
  started_at: '2026-01-01T00:00:00.100Z',
  status: 'failed',
  node_count: 5,
} as WorkflowRequest;
const base: RedriveBase = { cost_micro_usd: 5000, extra_micro_usd: 0, fees_micro_usd: 200, node_count: 3 };
const transactItems = () => mock.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;

beforeEach(() => mock.reset());

describe('the redrive’s start', () => {
  test('moves the request back on condition that it is still ended after as many redrives, with a slot and nothing counted in the day', async () => {
    mock.on(TransactWriteCommand).resolves({});

    assert.equal(await store().startRedrive(request, 1, base, '2026-01-02T00:00:00.000Z', 10), true);

    const [update, slot, ...rest] = transactItems();
    assert.deepEqual(update!.Update!.Key, keys.workflowRequest(requestId));
    assert.equal(update!.Update!.ConditionExpression, '#status IN (:failed, :stopped) AND attribute_not_exists(#redrive_count)');
    const values = update!.Update!.ExpressionAttributeValues!;
    assert.deepEqual(
      [values[':status'], values[':redrive_count'], values[':redrive_base'], values[':completed_at'], values[':concurrency_slot']],
      ['in_progress', 1, base, null, true],
    );
    assert.deepEqual(slot!.Update!.Key, keys.inProgress(accountId));
    assert.deepEqual(rest, [], 'no day part: the request was counted when it was created');
  });

  test('a second redrive is conditioned on the first; refused by the request (another redrive moved it), false', async () => {
    mock.on(TransactWriteCommand).rejects(cancelled('ConditionalCheckFailed', 'None'));

    assert.equal(await store().startRedrive({ ...request, redrive_count: 1 }, 2, base, '2026-01-02T00:00:00.000Z', 10), false);

    const [update] = transactItems();
    assert.equal(update!.Update!.ConditionExpression, '#status IN (:failed, :stopped) AND #redrive_count = :before');
    assert.equal(update!.Update!.ExpressionAttributeValues![':before'], 1);
  });
});

describe('replacing node executions', () => {
  const old = { id: 'old', workflow_request_id: requestId, node_id: 'c', status: 'failed', attempt_count: 2 } as NodeExecution;
  const next = { ...old, id: 'new', status: 'blocked', redrive: 1, attempts_before: 2 } as NodeExecution;

  test('a Put of the new execution on condition that the node is still the execution read', async () => {
    mock.on(PutCommand).resolves({});
    assert.equal(await repo.replaceNode(requestId, old, next), true);
    const input = mock.commandCalls(PutCommand)[0]!.args[0].input;
    assert.deepEqual(input.Item, { ...keys.nodeExecution(requestId, 'c'), entity: 'node_execution', ...next });
    assert.equal(input.ConditionExpression, '#id = :id AND #status = :status');
    assert.deepEqual(input.ExpressionAttributeValues, { ':id': 'old', ':status': 'failed' });
  });

  test('refused (another redrive replaced it first): false', async () => {
    mock.on(PutCommand).rejects(conditionFailed());
    assert.equal(await repo.replaceNode(requestId, old, next), false);
  });

  test('the replaced executions are kept under the redrive’s number, and read back in that order', async () => {
    mock.on(BatchWriteCommand).resolves({});
    await repo.keepRedriven(requestId, 1, [old]);
    const items = mock.commandCalls(BatchWriteCommand)[0]!.args[0].input.RequestItems!.t!.map((r) => r.PutRequest!.Item);
    assert.deepEqual(items, [{ ...keys.redrivenNodeExecution(requestId, 1, 'c'), entity: 'redriven_node_execution', ...old }]);
    assert.ok(keys.redrivenNodeExecution(requestId, 2, 'a').sk > keys.redrivenNodeExecution(requestId, 1, 'z').sk);

    mock.on(QueryCommand).resolves({ Items: items });
    assert.deepEqual(await repo.redrivenNodes(requestId), [old]);
    assert.equal(mock.commandCalls(QueryCommand)[0]!.args[0].input.ExpressionAttributeValues![':prefix'], 'REDRIVEN#');
  });
});

describe('the end of a redriven request', () => {
  const redriven = {
    ...keys.workflowRequest(requestId),
    ...request,
    status: 'in_progress',
    redrive_count: 1,
    redrive_base: { ...base, extra_micro_usd: 700 },
    cost_micro_usd: 5000 + 900,
    extra_micro_usd: 700 + 400,
  };

  test('settles only what ran again: the new fees, the executions and cost since the redrive, a debit of its own for the extra since', async () => {
    // Prepare: the kept nodes still carry 200 of fees the first end recorded; the redrive's nodes 300 more.
    const windows = { Update: { TableName: 't', Key: keys.usageWindows(accountId), UpdateExpression: 'SET x = :x' } };
    const recorded: number[] = [];
    const debits: Array<{ id: string; amountMicroUsd: number }> = [];
    const ended = workflowRequests(
      table,
      settlements(table, {
        meter: {
          record: async (_account, cost) => {
            recorded.push(cost);
            return { item: windows, extraMicroUsd: 0 };
          },
        },
        wallet: {
          debitWith: async (input: { id: string; amountMicroUsd: number }, send: (items: unknown[]) => Promise<void>) => {
            debits.push({ id: input.id, amountMicroUsd: input.amountMicroUsd });
            await send([]);
            return undefined as never;
          },
        } as never,
      }),
    );
    mock.on(GetCommand).resolves({ Item: redriven });
    mock.on(QueryCommand).resolves({
      Items: [
        { status: 'completed', unrecorded_micro_usd: 200 },
        { status: 'completed', unrecorded_micro_usd: 300 },
      ],
    });
    mock.on(TransactWriteCommand).resolves({});

    // Act
    await ended.endRequest(requestId, ['in_progress'], { status: 'completed', completed_at: '2026-01-02T00:00:01.000Z' });

    // Assert
    assert.deepEqual(recorded, [300], 'only the fees of what ran again reach the windows');
    const [update, , activity] = transactItems();
    assert.equal(update!.Update!.ExpressionAttributeValues![':fees'], 300);
    assert.deepEqual(activity, activityUpdate('t', accountId, '2026-01-02', { nodes: 3, cost_micro_usd: 900 + 300 }));
    assert.deepEqual(debits, [{ id: requestDebitId(requestId, 1), amountMicroUsd: 400 }]);
    assert.notEqual(requestDebitId(requestId, 1), requestDebitId(requestId));
  });
});

describe('the live stream of a redriven request', () => {
  const watermarked = (redrive_count: number) => ({ ...request, status: 'in_progress', redrive_count, event_seq: 12 }) as WatermarkedRequest;
  const reader = (current: WatermarkedRequest) => ({ requestWithWatermark: async () => current }) as unknown as RequestEventsReader;
  const end = (status: string, redrive_count?: number) => ({ workflow_request: { id: requestId, status, ...(redrive_count ? { redrive_count } : {}) } });

  test('an end logged before the latest redrive does not close it; the end after it does', async () => {
    const source = requestEventSource(reader(watermarked(1)), watermarked(1));
    assert.equal(source.isTerminal(end('failed')), false);
    assert.equal(source.isTerminal(end('completed', 1)), true);
    assert.equal(source.isTerminal({ workflow_request: { id: requestId, status: 'in_progress', redrive_count: 1 } }), false);
  });

  test('a redrive learnt while following (a fresh read of the request) makes the earlier end not count', async () => {
    const current = watermarked(0);
    const source = requestEventSource(reader(current), watermarked(0));
    assert.equal(source.isTerminal(end('failed')), true);
    current.redrive_count = 1;
    await source.head();
    assert.equal(source.isTerminal(end('failed')), false);
  });
});
