import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, test } from 'vitest';
import { accountsRepo } from '#accounts/accounts-repository.js';
import { ConflictError, NotFoundError } from '#platform/errors.js';
import { keys } from '#platform/table/keys.js';
import { cancelled, conditionFailed, mockedDynamoDb } from '../helpers/dynamodb-mock.js';

const { mock, table } = mockedDynamoDb();

beforeEach(() => mock.reset());

describe('accounts', () => {
  test('create writes the account and its email guard in one transaction, email lower-cased', async () => {
    mock.on(TransactWriteCommand).resolves({});
    const id = randomUUID();
    const account = await accountsRepo(table).create({ id, email: ' Ann@Example.COM ', passwordHash: 'h', plan: 'pro', balanceMicroUsd: 0, extraUsage: false });
    assert.equal(account.email, 'ann@example.com');
    const items = mock.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    assert.deepEqual(
      items.map((i) => [i.Put?.Item?.pk, i.Put?.ConditionExpression]),
      [
        [keys.account(id).pk, 'attribute_not_exists(pk)'],
        [keys.accountEmail('ann@example.com').pk, 'attribute_not_exists(pk)'],
      ],
    );
  });

  test('a taken email is a ConflictError', async () => {
    mock.on(TransactWriteCommand).rejects(cancelled('None', 'ConditionalCheckFailed'));
    await assert.rejects(
      accountsRepo(table).create({ id: randomUUID(), email: 'a@example.com', passwordHash: 'h', plan: 'pro', balanceMicroUsd: 0, extraUsage: false }),
      ConflictError,
    );
  });

  test('suspending an unknown account is NotFound', async () => {
    mock.on(UpdateCommand).rejects(conditionFailed());
    await assert.rejects(accountsRepo(table).setSuspended(randomUUID(), true), NotFoundError);
  });
});
