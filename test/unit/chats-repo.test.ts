import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, test } from 'vitest';
import { ConflictError } from '#platform/errors.js';
import { STATUS_OF } from '#platform/http/problem.js';
import { keys } from '#platform/table/keys.js';
import { chatsRepo } from '#workflows/chats-repository.js';
import type { Chat } from '#workflows/model.js';
import { conditionFailed, mockedDynamoDb, throttled } from '../helpers/dynamodb-mock.js';

const { mock, table } = mockedDynamoDb();
const repo = chatsRepo(table);

const accountId = randomUUID();
const chat = (overrides: Partial<Chat> = {}): Chat => ({
  id: randomUUID(),
  account_id: accountId,
  title: 'T',
  workflow_id: null,
  machine_id: null,
  last_run_id: null,
  created_at: '2026-01-01T00:00:00.000Z',
  ...overrides,
});

beforeEach(() => mock.reset());

describe('create', () => {
  test('puts the chat under its id, never over an existing item', async () => {
    mock.on(PutCommand).resolves({});
    const c = chat();
    assert.deepEqual(await repo.create(c), c);
    const input = mock.commandCalls(PutCommand)[0]!.args[0].input;
    assert.deepEqual(input, { TableName: 't', Item: { ...keys.chat(c.id), entity: 'chat', ...c }, ConditionExpression: 'attribute_not_exists(pk)' });
  });

  test('an existing chat id is a 409 chat_exists', async () => {
    mock.on(PutCommand).rejects(conditionFailed());
    await assert.rejects(repo.create(chat()), (e: unknown) => e instanceof ConflictError && e.code === 'chat_exists' && STATUS_OF[e.kind] === 409);
  });

  test('any other failure propagates unchanged', async () => {
    const error = throttled();
    mock.on(PutCommand).rejects(error);
    await assert.rejects(repo.create(chat()), (e) => e === error);
  });
});

describe('get', () => {
  test('reads consistently under the lower-cased id, with absent optional fields as null', async () => {
    const id = randomUUID();
    mock.on(GetCommand).resolves({ Item: { ...keys.chat(id), entity: 'chat', id, account_id: accountId, created_at: 'now' } });
    assert.deepEqual(await repo.get(accountId, id.toUpperCase()), {
      id,
      account_id: accountId,
      title: null,
      workflow_id: null,
      machine_id: null,
      last_run_id: null,
      created_at: 'now',
    });
    assert.deepEqual(mock.commandCalls(GetCommand)[0]!.args[0].input, { TableName: 't', Key: keys.chat(id), ConsistentRead: true });
  });

  test('an unknown, another account’s or a malformed id is no chat; a malformed one reads nothing', async () => {
    const c = chat();
    mock.on(GetCommand).resolves({ Item: { ...keys.chat(c.id), ...c } });
    assert.equal(await repo.get(randomUUID(), c.id), undefined);
    assert.equal(await repo.get(accountId, 'CHAT#x'), undefined);
    assert.equal(mock.commandCalls(GetCommand).length, 1);
    mock.on(GetCommand).resolves({});
    assert.equal(await repo.get(accountId, c.id), undefined);
  });
});
