import assert from 'node:assert/strict';
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, test } from 'vitest';
import { sessionsRepo } from '#accounts/sessions-repository.js';
import { keys } from '#platform/table/keys.js';
import { mockedDynamoDb, throttled } from '../helpers/dynamodb-mock.js';

const { mock, table } = mockedDynamoDb();
const repo = sessionsRepo(table);

const accountId = '11111111-1111-4111-8111-111111111111';
const now = new Date('2026-05-01T00:00:00.000Z');
const stored = (expiresAt: string) => ({ ...keys.session('h'), entity: 'session', account_id: accountId, created_at: 'c', expires_at: expiresAt, ttl: 1 });

beforeEach(() => mock.reset());

describe('put', () => {
  test('stores the session under its hash with the expiry as TTL in epoch seconds', async () => {
    mock.on(PutCommand).resolves({});
    const expiresAt = new Date('2026-05-01T12:00:00.999Z');
    const session = await repo.put('h', accountId, expiresAt);
    assert.deepEqual([session.account_id, session.expires_at], [accountId, '2026-05-01T12:00:00.999Z']);
    const input = mock.commandCalls(PutCommand)[0]!.args[0].input;
    assert.equal(input.TableName, 't');
    assert.deepEqual(input.Item, { ...keys.session('h'), entity: 'session', ...session, ttl: Math.floor(expiresAt.getTime() / 1000) });
  });
});

describe('get', () => {
  test('reads the session by its hash, strongly consistent, without the key attributes', async () => {
    mock.on(GetCommand).resolves({ Item: stored('2026-05-01T12:00:00.000Z') });
    assert.deepEqual(await repo.get('h', now), { account_id: accountId, created_at: 'c', expires_at: '2026-05-01T12:00:00.000Z' });
    assert.deepEqual(mock.commandCalls(GetCommand)[0]!.args[0].input, { TableName: 't', Key: keys.session('h'), ConsistentRead: true });
  });

  test('an expired session still in the table (TTL lags) is no session, from its expiry instant on', async () => {
    for (const expiresAt of ['2026-04-30T23:59:59.999Z', now.toISOString()]) {
      mock.reset();
      mock.on(GetCommand).resolves({ Item: stored(expiresAt) });
      assert.equal(await repo.get('h', now), undefined, expiresAt);
    }
  });

  test('an unknown hash is no session; a read failure propagates', async () => {
    mock.on(GetCommand).resolves({});
    assert.equal(await repo.get('h', now), undefined);
    const error = throttled();
    mock.on(GetCommand).rejects(error);
    await assert.rejects(repo.get('h', now), (e) => e === error);
  });
});

describe('delete', () => {
  test('deletes the session item by its hash', async () => {
    mock.on(DeleteCommand).resolves({});
    await repo.delete('h');
    assert.deepEqual(mock.commandCalls(DeleteCommand)[0]!.args[0].input, { TableName: 't', Key: keys.session('h') });
  });
});
