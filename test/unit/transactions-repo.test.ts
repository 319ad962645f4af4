import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, test } from 'vitest';
import { transactionsRepo } from '#accounts/transactions-repository.js';
import { NotFoundError } from '#platform/errors.js';
import { keys } from '#platform/table/keys.js';
import { cancelled, conditionFailed, mockedDynamoDb, throttled } from '../helpers/dynamodb-mock.js';

const { mock, table } = mockedDynamoDb();
const repo = transactionsRepo(table);

beforeEach(() => mock.reset());

describe('credit', () => {
  test('raises the balance of an existing account and puts the ledger entry, in one transaction', async () => {
    mock.on(TransactWriteCommand).resolves({});
    const accountId = randomUUID();
    const txn = await repo.credit({ id: 'txn_1', accountId, amountMicroUsd: 2_500_000, description: 'd', metadata: { by: 'op' } });
    assert.deepEqual(
      [txn.id, txn.user_id, txn.amount, txn.currency, txn.type, txn.status, txn.metadata, txn.created_at],
      ['txn_1', accountId, 2_500_000, 'USD', 'credit', 'completed', { by: 'op' }, txn.updated_at],
    );
    const [update, put] = mock.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    assert.deepEqual(update!.Update, {
      TableName: 't',
      Key: keys.account(accountId),
      UpdateExpression: 'ADD balance_micro_usd :amount SET updated_at = :now',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':amount': 2_500_000, ':now': txn.created_at },
    });
    assert.deepEqual(put!.Put, {
      TableName: 't',
      Item: { ...keys.transaction(accountId, txn.created_at, 'txn_1'), entity: 'transaction', ...txn },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
  });

  test('an unknown account (the condition cancels the transaction) is NotFound', async () => {
    for (const error of [cancelled('ConditionalCheckFailed', 'None'), conditionFailed()]) {
      mock.reset();
      mock.on(TransactWriteCommand).rejects(error);
      await assert.rejects(repo.credit({ id: 'x', accountId: randomUUID(), amountMicroUsd: 1, description: null }), NotFoundError);
    }
  });

  test('a cancellation without a failed condition, or any other failure, propagates unchanged', async () => {
    for (const error of [cancelled('TransactionConflict', 'None'), throttled()]) {
      mock.reset();
      mock.on(TransactWriteCommand).rejects(error);
      await assert.rejects(repo.credit({ id: 'x', accountId: randomUUID(), amountMicroUsd: 1, description: null }), (e) => e === error);
    }
  });
});
