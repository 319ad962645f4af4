import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, test } from 'vitest';
import { ConflictError, NotFoundError } from '#platform/errors.js';
import { keys } from '#platform/table/keys.js';
import { chatsRepo } from '#workflows/chats-repository.js';
import type { Workflow } from '#workflows/model.js';
import { workflowsRepo } from '#workflows/workflows-repository.js';
import { cancelled, conditionFailed, mockedDynamoDb } from '../helpers/dynamodb-mock.js';

const { mock, table } = mockedDynamoDb();
const repo = workflowsRepo(table);

const accountId = randomUUID();
const workflow = (overrides: Partial<Workflow> = {}): Workflow => ({
  id: randomUUID(),
  account_id: accountId,
  name: 'Flow',
  description: null,
  latest_version_id: null,
  version_count: 0,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  ...overrides,
});
const definition = { nodes: [{ id: randomUUID(), name: 'a', type: 'approval' as const, config: {} }], edges: [] };

beforeEach(() => mock.reset());

describe('workflows', () => {
  test('create puts the workflow with its index entry and folded name, never over an existing item', async () => {
    mock.on(PutCommand).resolves({});
    const id = randomUUID();
    const created = await repo.create({ id, accountId, name: 'My Flow', description: null, now: '2026-02-03T04:05:06.000Z' });
    assert.equal(created.latest_version_id, null);
    const input = mock.commandCalls(PutCommand)[0]!.args[0].input;
    assert.equal(input.ConditionExpression, 'attribute_not_exists(pk)');
    assert.deepEqual(
      [input.Item?.pk, input.Item?.sk, input.Item?.gsi1pk, input.Item?.gsi1sk, input.Item?.name_lower, input.Item?.version_count],
      [`ACCOUNT#${accountId}`, `WORKFLOW#${id}`, `ACCOUNT#${accountId}#WORKFLOWS`, `2026-02-03T04:05:06.000Z#${id}`, 'my flow', 0],
    );
    mock.on(PutCommand).rejects(conditionFailed());
    await assert.rejects(repo.create({ id, accountId, name: 'x', description: null, now: 'n' }), ConflictError);
  });

  test('get reads under the caller’s account; a malformed id reads nothing', async () => {
    const w = workflow();
    mock.on(GetCommand).resolves({ Item: { ...keys.workflow(accountId, w.id), ...w } });
    assert.equal((await repo.get(accountId, w.id.toUpperCase()))?.id, w.id);
    assert.deepEqual(mock.commandCalls(GetCommand)[0]!.args[0].input.Key, keys.workflow(accountId, w.id));
    assert.equal(await repo.get(accountId, 'not-a-uuid'), undefined);
    assert.equal(mock.commandCalls(GetCommand).length, 1);
  });
});

describe('list', () => {
  const item = (n: number) => {
    const w = workflow({ id: `00000000-0000-0000-0000-${String(n).padStart(12, '0')}`, created_at: `2026-01-01T00:00:${String(n).padStart(2, '0')}.000Z` });
    return { ...keys.workflow(accountId, w.id), ...keys.workflowsIndex(accountId, w.created_at, w.id), ...w };
  };

  test('newest first from the index, one more than the page to prove has_more', async () => {
    mock.on(QueryCommand).resolves({ Items: [item(9), item(8), item(7)], LastEvaluatedKey: { pk: 'x' } });
    const page = await repo.list(accountId, { limit: 2 });
    assert.deepEqual(
      page.workflows.map((w) => w.id.slice(-1)),
      ['9', '8'],
    );
    assert.equal(page.nextAfter, item(8).gsi1sk);
    const input = mock.commandCalls(QueryCommand)[0]!.args[0].input;
    assert.deepEqual([input.IndexName, input.ScanIndexForward, input.Limit, input.FilterExpression], ['gsi1', false, 3, undefined]);
  });

  test('a position becomes the index start key under the caller’s account', async () => {
    mock.on(QueryCommand).resolves({ Items: [item(1)] });
    const page = await repo.list(accountId, { limit: 2, after: item(2).gsi1sk });
    assert.equal(page.nextAfter, undefined);
    assert.deepEqual(mock.commandCalls(QueryCommand)[0]!.args[0].input.ExclusiveStartKey, {
      gsi1pk: item(2).gsi1pk,
      gsi1sk: item(2).gsi1sk,
      pk: `ACCOUNT#${accountId}`,
      sk: `WORKFLOW#${item(2).id}`,
    });
  });

  test('search filters on the folded name and reads on until the page is full', async () => {
    mock
      .on(QueryCommand)
      .resolvesOnce({ Items: [item(9)], LastEvaluatedKey: { gsi1sk: item(5).gsi1sk } })
      .resolvesOnce({ Items: [], LastEvaluatedKey: { gsi1sk: item(3).gsi1sk } })
      .resolvesOnce({ Items: [item(2), item(1)], LastEvaluatedKey: { gsi1sk: item(1).gsi1sk } });
    const page = await repo.list(accountId, { limit: 2, search: 'FLOW' });
    assert.deepEqual(
      page.workflows.map((w) => w.id.slice(-1)),
      ['9', '2'],
    );
    assert.equal(page.nextAfter, item(2).gsi1sk);
    const calls = mock.commandCalls(QueryCommand);
    assert.equal(calls.length, 3);
    assert.equal(calls[0]!.args[0].input.FilterExpression, 'contains(name_lower, :search)');
    assert.equal(calls[0]!.args[0].input.ExpressionAttributeValues?.[':search'], 'flow');
  });

  test('a sparse search stops after its read budget with a short page positioned at the last item read', async () => {
    mock.on(QueryCommand).resolves({ Items: [], LastEvaluatedKey: { gsi1sk: item(4).gsi1sk } });
    const page = await repo.list(accountId, { limit: 2, search: 'x' });
    assert.deepEqual(page.workflows, []);
    assert.equal(page.nextAfter, item(4).gsi1sk);
    assert.equal(mock.commandCalls(QueryCommand).length, 25);
  });
});

describe('createVersion', () => {
  test('one transaction: counter raised on condition, latest set, version put if absent', async () => {
    mock.on(TransactWriteCommand).resolves({});
    const w = workflow({ version_count: 2 });
    const versionId = randomUUID();
    const version = await repo.createVersion(w, { id: versionId, definition, entry_node_ids: [definition.nodes[0]!.id], created_at: 'now' });
    assert.equal(version.version, 3);
    const [update, put] = mock.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    assert.deepEqual(update!.Update?.Key, keys.workflow(accountId, w.id));
    assert.equal(update!.Update?.ConditionExpression, 'attribute_exists(pk) AND version_count = :expected');
    assert.equal(update!.Update?.UpdateExpression, 'SET version_count = :next, latest_version_id = :version_id, updated_at = :now');
    assert.deepEqual(update!.Update?.ExpressionAttributeValues, { ':next': 3, ':expected': 2, ':version_id': versionId, ':now': 'now' });
    assert.deepEqual(
      [put!.Put?.Item?.pk, put!.Put?.Item?.sk, put!.Put?.Item?.account_id, put!.Put?.Item?.version],
      [`WORKFLOWVERSION#${versionId}`, 'VERSION', accountId, 3],
    );
    assert.equal(put!.Put?.ConditionExpression, 'attribute_not_exists(pk)');
  });

  test('a lost race re-reads the counter and takes the next number', async () => {
    const w = workflow({ version_count: 0 });
    mock.on(TransactWriteCommand).rejectsOnce(cancelled('ConditionalCheckFailed', 'None')).rejectsOnce(cancelled('TransactionConflict', 'None')).resolves({});
    mock
      .on(GetCommand)
      .resolvesOnce({ Item: { ...w, version_count: 1 } })
      .resolvesOnce({ Item: { ...w, version_count: 2 } });
    const version = await repo.createVersion(w, { id: randomUUID(), definition, entry_node_ids: [], created_at: 'now' });
    assert.equal(version.version, 3);
    const expected = mock.commandCalls(TransactWriteCommand).map((c) => c.args[0].input.TransactItems![0]!.Update?.ExpressionAttributeValues?.[':expected']);
    assert.deepEqual(expected, [0, 1, 2]);
    assert.equal(mock.commandCalls(GetCommand)[0]!.args[0].input.ConsistentRead, true);
  });

  test('the workflow gone is 404; an existing version id is 409; endless races end in 409 version_conflict', async () => {
    const w = workflow();
    mock.on(TransactWriteCommand).rejects(cancelled('ConditionalCheckFailed', 'None'));
    mock.on(GetCommand).resolves({});
    await assert.rejects(repo.createVersion(w, { id: randomUUID(), definition, entry_node_ids: [], created_at: 'now' }), NotFoundError);

    mock.reset();
    mock.on(TransactWriteCommand).rejects(cancelled('None', 'ConditionalCheckFailed'));
    await assert.rejects(
      repo.createVersion(w, { id: randomUUID(), definition, entry_node_ids: [], created_at: 'now' }),
      (e: unknown) => e instanceof ConflictError && e.code === 'version_exists',
    );

    mock.reset();
    mock.on(TransactWriteCommand).rejects(cancelled('ConditionalCheckFailed', 'None'));
    mock.on(GetCommand).resolves({ Item: { ...w, version_count: 5 } });
    await assert.rejects(
      repo.createVersion(w, { id: randomUUID(), definition, entry_node_ids: [], created_at: 'now' }),
      (e: unknown) => e instanceof ConflictError && e.code === 'version_conflict',
    );
    assert.equal(mock.commandCalls(TransactWriteCommand).length, 12);
  });

  test('other failures are not swallowed', async () => {
    mock.on(TransactWriteCommand).rejects(new Error('boom'));
    await assert.rejects(repo.createVersion(workflow(), { id: randomUUID(), definition, entry_node_ids: [], created_at: 'now' }), /boom/);
  });
});

describe('getVersion and chats: another account’s item is no item', () => {
  test('getVersion', async () => {
    const versionId = randomUUID();
    mock
      .on(GetCommand)
      .resolves({ Item: { ...keys.workflowVersion(versionId), id: versionId, account_id: accountId, version: 1, definition, entry_node_ids: [] } });
    assert.equal((await repo.getVersion(accountId, versionId))?.version, 1);
    assert.equal(await repo.getVersion(randomUUID(), versionId), undefined);
    assert.equal(await repo.getVersion(accountId, 'garbage'), undefined);
    assert.equal(mock.commandCalls(GetCommand).length, 2);
    assert.deepEqual(mock.commandCalls(GetCommand)[0]!.args[0].input, { TableName: 't', Key: keys.workflowVersion(versionId), ConsistentRead: true });
  });

  test('chats', async () => {
    const chats = chatsRepo(table);
    const chatId = randomUUID();
    mock.on(GetCommand).resolves({ Item: { ...keys.chat(chatId), id: chatId, account_id: accountId, created_at: 'now' } });
    assert.deepEqual(await chats.get(accountId, chatId), {
      id: chatId,
      account_id: accountId,
      title: null,
      workflow_id: null,
      machine_id: null,
      last_run_id: null,
      created_at: 'now',
    });
    assert.equal(await chats.get(randomUUID(), chatId), undefined);
    assert.equal(await chats.get(accountId, '../x'), undefined);
    mock.on(PutCommand).rejects(conditionFailed());
    await assert.rejects(
      chats.create({ id: chatId, account_id: accountId, title: null, workflow_id: null, machine_id: null, last_run_id: null, created_at: 'now' }),
      ConflictError,
    );
  });
});
