import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { BatchGetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, test } from 'vitest';
import type { StoredToken } from '#accounts/model.js';
import { tokensRepo } from '#accounts/tokens-repository.js';
import { NotFoundError } from '#platform/errors.js';
import { keys } from '#platform/table/keys.js';
import { cancelled, mockedDynamoDb } from '../helpers/dynamodb-mock.js';

const { mock, table } = mockedDynamoDb();
const repo = tokensRepo(table);

const accountId = randomUUID();
const token = (overrides: Partial<StoredToken> = {}): StoredToken => ({
  id: 'tok_1',
  account_id: accountId,
  name: 'n',
  token_hash: 'h',
  created_at: '2026-01-01T00:00:00.000Z',
  expires_at: new Date(Date.now() + 60_000).toISOString(),
  ...overrides,
});
const accountItem = { ...keys.account(accountId), id: accountId, email: 'a@example.com', plan: 'pro', balance_micro_usd: 1, suspended: false };

beforeEach(() => mock.reset());

describe('authenticate', () => {
  test('reads credential and account in one strongly consistent BatchGetItem', async () => {
    mock.on(BatchGetCommand).resolves({ Responses: { t: [{ ...keys.tokenByHash('h'), ...token() }, accountItem] } });
    const found = await repo.authenticate('h', accountId);
    assert.equal(found?.account.id, accountId);
    const calls = mock.commandCalls(BatchGetCommand);
    assert.equal(calls.length, 1);
    assert.deepEqual(calls[0]!.args[0].input.RequestItems?.t, { Keys: [keys.tokenByHash('h'), keys.account(accountId)], ConsistentRead: true });
  });

  test('retries unprocessed keys', async () => {
    mock
      .on(BatchGetCommand)
      .resolvesOnce({ Responses: { t: [accountItem] }, UnprocessedKeys: { t: { Keys: [keys.tokenByHash('h')], ConsistentRead: true } } })
      .resolvesOnce({ Responses: { t: [{ ...keys.tokenByHash('h'), ...token() }] } });
    assert.ok(await repo.authenticate('h', accountId));
    assert.equal(mock.commandCalls(BatchGetCommand).length, 2);
  });

  test('an expired token, a token of another account or a missing item is no principal', async () => {
    for (const items of [
      [{ ...keys.tokenByHash('h'), ...token({ expires_at: new Date(Date.now() - 1).toISOString() }) }, accountItem],
      [{ ...keys.tokenByHash('h'), ...token({ account_id: randomUUID() }) }, accountItem],
      [accountItem],
      [{ ...keys.tokenByHash('h'), ...token() }],
    ]) {
      mock.reset();
      mock.on(BatchGetCommand).resolves({ Responses: { t: items } });
      assert.equal(await repo.authenticate('h', accountId), undefined);
    }
  });
});

describe('list', () => {
  test('filters expired tokens in the query and reads on until the page is full', async () => {
    const t = (n: number) => ({ ...keys.accountToken(accountId, `tok_${n}`), ...token({ id: `tok_${n}` }) });
    mock
      .on(QueryCommand)
      .resolvesOnce({ Items: [t(1)], LastEvaluatedKey: { pk: 'x', sk: 'TOKEN#tok_1' } })
      .resolvesOnce({ Items: [t(2), t(3)], LastEvaluatedKey: { pk: 'x', sk: 'TOKEN#tok_3' } });
    const page = await repo.list(accountId, { limit: 2 });
    assert.deepEqual(
      page.tokens.map((x) => x.id),
      ['tok_1', 'tok_2'],
    );
    assert.equal(page.nextAfter, 'TOKEN#tok_2');
    const input = mock.commandCalls(QueryCommand)[0]!.args[0].input;
    assert.equal(input.FilterExpression, 'expires_at > :now');
    assert.equal(input.ConsistentRead, true);
  });

  test('the last page has no next position', async () => {
    mock.on(QueryCommand).resolves({ Items: [{ ...keys.accountToken(accountId, 'tok_1'), ...token() }] });
    const page = await repo.list(accountId, { limit: 2, after: 'TOKEN#tok_0' });
    assert.equal(page.nextAfter, undefined);
    assert.deepEqual(mock.commandCalls(QueryCommand)[0]!.args[0].input.ExclusiveStartKey, { pk: `ACCOUNT#${accountId}`, sk: 'TOKEN#tok_0' });
  });
});

describe('delete', () => {
  test('removes both items in one transaction; a lost race is 404', async () => {
    mock.on(TransactWriteCommand).resolvesOnce({});
    await repo.delete(token());
    const items = mock.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    assert.deepEqual(
      items.map((i) => i.Delete?.Key),
      [keys.accountToken(accountId, 'tok_1'), keys.tokenByHash('h')],
    );
    mock.on(TransactWriteCommand).rejects(cancelled('ConditionalCheckFailed', 'None'));
    await assert.rejects(repo.delete(token()), NotFoundError);
  });
});
