import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, test } from 'vitest';
import { NotRefundableError, RefundExceedsDebitError, TransactionNotFoundError } from '#billing/errors.js';
import { billing, transactionIdFor } from '#billing/index.js';
import { ENTRY_ITEM_COUNT, ledgerRepo } from '#billing/ledger-repository.js';
import { BLOCK_SIZE, blockOf } from '#billing/model.js';
import { NotFoundError, UnavailableError } from '#platform/errors.js';
import { keys } from '#platform/table/keys.js';
import { cancelled, mockedDynamoDb, throttled } from '../helpers/dynamodb-mock.js';

const { mock, table } = mockedDynamoDb();
const repo = ledgerRepo(table);

beforeEach(() => mock.reset());

const accountId = randomUUID();
const writes = () => mock.commandCalls(TransactWriteCommand).map((c) => c.args[0].input.TransactItems!);
/** Stubs the reads an entry makes: the ledger's head, and the account's balance. */
function reads(head: Record<string, unknown> | undefined, balance?: number) {
  mock.on(GetCommand, { Key: keys.transactionTotals(accountId) }).resolves({ Item: head });
  mock.on(GetCommand, { Key: keys.account(accountId) }).resolves(balance === undefined ? {} : { Item: { balance_micro_usd: balance } });
}
/** A cancellation with `code` on item `index` of an entry's items. */
const refusedAt = (index: number, code = 'ConditionalCheckFailed', total = ENTRY_ITEM_COUNT) =>
  cancelled(...Array.from({ length: total }, (_, i) => (i === index ? code : 'None')));

describe('credit', () => {
  test('one transaction: the balance, the id item put once, the entry at the next position and its copy, the head, day and block counters', async () => {
    reads(undefined);
    mock.on(TransactWriteCommand).resolves({});
    const txn = await repo.credit({ id: 'c-1', accountId, amountMicroUsd: 2_500_000, description: 'Top-up', metadata: { by: 'op' } });
    assert.deepEqual(
      [txn.id, txn.user_id, txn.amount, txn.currency, txn.type, txn.status, txn.metadata, txn.created_at],
      ['c-1', accountId, 2_500_000, 'USD', 'credit', 'completed', { by: 'op' }, txn.updated_at],
    );
    const [items] = writes();
    assert.equal(items!.length, ENTRY_ITEM_COUNT);
    const [account, id, entry, copy, head, day, block] = items!;
    assert.deepEqual(account!.Update, {
      TableName: 't',
      Key: keys.account(accountId),
      UpdateExpression: 'ADD balance_micro_usd :amount SET updated_at = :now',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':amount': 2_500_000, ':now': txn.created_at },
    });
    assert.deepEqual(id!.Put, {
      TableName: 't',
      Item: { ...keys.transactionId('c-1'), entity: 'transaction_id', account_id: accountId, seq: 1, type: 'credit' },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
    const stored = { ...txn, seq: 1, account_id: accountId, search_text: 'top-up\nop' };
    assert.deepEqual(entry!.Put, {
      TableName: 't',
      Item: { ...keys.transaction(accountId, 1), entity: 'transaction', ...stored },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
    assert.deepEqual(copy!.Put!.Item, { ...keys.transactionOfKind(accountId, 'credit', 'completed', 1), entity: 'transaction_copy', ...stored });
    assert.deepEqual(head!.Update!.Key, keys.transactionTotals(accountId));
    assert.equal(head!.Update!.ConditionExpression, 'attribute_not_exists(#seq)', 'the first position only if nobody took it');
    assert.match(head!.Update!.UpdateExpression!, /SET .*#seq = :seq, last_at = :now ADD #combo :one$/);
    assert.deepEqual(head!.Update!.ExpressionAttributeNames, { '#combo': 'credit_completed', '#seq': 'seq' });
    assert.deepEqual(day!.Update!.Key, keys.transactionDay(accountId, txn.created_at.slice(0, 10)));
    assert.match(day!.Update!.UpdateExpression!, /first_seq = if_not_exists\(first_seq, :seq\), last_seq = :seq ADD #combo :one$/);
    assert.deepEqual(block!.Update!.Key, keys.transactionBlock(accountId, 0));
    assert.equal(block!.Update!.ExpressionAttributeValues![':one'], 1);
  });

  test('the next position is conditioned on the head read; created_at never goes back before the newest entry', async () => {
    const future = new Date(Date.now() + 60_000).toISOString();
    reads({ seq: 100, last_at: future, credit_completed: 100 });
    mock.on(TransactWriteCommand).resolves({});
    const txn = await repo.credit({ id: 'c-2', accountId, amountMicroUsd: 1, description: null });
    assert.equal(txn.created_at, future);
    const items = writes()[0]!;
    assert.deepEqual(items[2]!.Put!.Item!.sk, keys.transaction(accountId, 101).sk);
    assert.equal(items[4]!.Update!.ConditionExpression, '#seq = :previous');
    assert.equal(items[4]!.Update!.ExpressionAttributeValues![':previous'], 100);
    assert.deepEqual(items[6]!.Update!.Key, keys.transactionBlock(accountId, 1), 'position 101 opens the second block');
  });

  test('a position taken meanwhile (or a conflicting transaction) is tried again with a fresh head', async () => {
    mock
      .on(GetCommand, { Key: keys.transactionTotals(accountId) })
      .resolvesOnce({ Item: { seq: 1 } })
      .resolves({ Item: { seq: 2 } });
    mock.on(TransactWriteCommand).rejectsOnce(refusedAt(4)).rejectsOnce(refusedAt(5, 'TransactionConflict')).resolves({});
    await repo.credit({ id: 'c-3', accountId, amountMicroUsd: 1, description: null });
    const sent = writes();
    assert.equal(sent.length, 3);
    assert.equal(sent[2]![2]!.Put!.Item!.seq, 3);
  });

  test('an unknown account is NotFound; a recorded id answers the first entry; other failures propagate; endless races give up', async () => {
    reads({ seq: 3 });
    mock.on(TransactWriteCommand).rejects(refusedAt(0));
    await assert.rejects(repo.credit({ id: 'c-4', accountId, amountMicroUsd: 1, description: null }), NotFoundError);

    mock.reset();
    reads({ seq: 3 });
    mock.on(TransactWriteCommand).rejects(refusedAt(1));
    mock.on(GetCommand, { Key: keys.transactionId('c-5') }).resolves({ Item: { account_id: accountId, seq: 2 } });
    const first = { id: 'c-5', user_id: accountId, amount: 7, type: 'credit', status: 'completed', seq: 2, search_text: '' };
    mock.on(GetCommand, { Key: keys.transaction(accountId, 2) }).resolves({ Item: { ...keys.transaction(accountId, 2), ...first } });
    const replayed = await repo.credit({ id: 'c-5', accountId, amountMicroUsd: 1, description: null });
    assert.deepEqual(replayed, { id: 'c-5', user_id: accountId, amount: 7, type: 'credit', status: 'completed' });

    mock.reset();
    reads({ seq: 3 });
    const error = throttled();
    mock.on(TransactWriteCommand).rejects(error);
    await assert.rejects(repo.credit({ id: 'c-6', accountId, amountMicroUsd: 1, description: null }), (e) => e === error);

    mock.reset();
    reads({ seq: 3 });
    mock.on(TransactWriteCommand).rejects(refusedAt(4));
    await assert.rejects(repo.credit({ id: 'c-7', accountId, amountMicroUsd: 1, description: null }), UnavailableError);
  }, 20_000);
});

describe('debit', () => {
  const debit = (amount: number, send?: Parameters<typeof repo.debit>[1]) =>
    repo.debit({ id: transactionIdFor('debit:run:r1'), accountId, amountMicroUsd: amount, description: 'Run r1', metadata: { run_id: 'r1' } }, send);

  test('a balance that covers it: all of it, on condition that the balance still does', async () => {
    reads({ seq: 1 }, 5_000_000);
    mock.on(TransactWriteCommand).resolves({});
    const result = await debit(2_000_000);
    assert.deepEqual([result.transaction.type, result.transaction.status, result.transaction.amount], ['debit', 'completed', 2_000_000]);
    assert.deepEqual(result.transaction.metadata, { run_id: 'r1' });
    assert.deepEqual([result.requestedMicroUsd, result.shortfallMicroUsd, result.replayed], [2_000_000, 0, false]);
    const [account, , entry] = writes()[0]!;
    assert.equal(account!.Update!.ConditionExpression, 'balance_micro_usd >= :taken');
    assert.deepEqual(account!.Update!.ExpressionAttributeValues, { ':amount': -2_000_000, ':taken': 2_000_000, ':now': result.transaction.created_at });
    assert.deepEqual([entry!.Put!.Item!.refunded_micro_usd, entry!.Put!.Item!.shortfall_micro_usd], [0, 0]);
    assert.match(String(entry!.Put!.Item!.id), /^[0-9a-f-]{36}$/);
  });

  test('a balance short of it: all there is (the balance read, exactly), the shortfall reported and kept in metadata', async () => {
    reads({ seq: 1 }, 1_000_000);
    mock.on(TransactWriteCommand).resolves({});
    const result = await debit(3_000_000);
    assert.deepEqual([result.transaction.status, result.transaction.amount, result.shortfallMicroUsd], ['completed', 1_000_000, 2_000_000]);
    assert.deepEqual(result.transaction.metadata, { run_id: 'r1', requested_micro_usd: 3_000_000, shortfall_micro_usd: 2_000_000 });
    const [account] = writes()[0]!;
    assert.equal(account!.Update!.ConditionExpression, 'balance_micro_usd = :taken');
    assert.equal(account!.Update!.ExpressionAttributeValues![':amount'], -1_000_000);
  });

  test('an empty wallet: a failed debit of what was asked, the balance only checked', async () => {
    reads({ seq: 1 }, 0);
    mock.on(TransactWriteCommand).resolves({});
    const result = await debit(3_000_000);
    assert.deepEqual([result.transaction.status, result.transaction.amount, result.shortfallMicroUsd], ['failed', 3_000_000, 3_000_000]);
    const [account, , , copy] = writes()[0]!;
    assert.deepEqual(account!.ConditionCheck, {
      TableName: 't',
      Key: keys.account(accountId),
      ConditionExpression: 'balance_micro_usd <= :zero',
      ExpressionAttributeValues: { ':zero': 0 },
    });
    assert.deepEqual(copy!.Put!.Item!.sk, keys.transactionOfKind(accountId, 'debit', 'failed', 2).sk);
  });

  test('a balance that moved since it was read is read again', async () => {
    reads({ seq: 1 });
    mock
      .on(GetCommand, { Key: keys.account(accountId) })
      .resolvesOnce({ Item: { balance_micro_usd: 5 } })
      .resolves({ Item: { balance_micro_usd: 3 } });
    mock.on(TransactWriteCommand).rejectsOnce(refusedAt(0)).resolves({});
    const result = await debit(5);
    assert.deepEqual([result.transaction.amount, result.shortfallMicroUsd], [3, 2]);
  });

  test('a retried debit (its id recorded) answers the first one, replayed, taking nothing', async () => {
    reads({ seq: 4 }, 10);
    mock
      .on(TransactWriteCommand)
      .rejects(cancelled('ConditionalCheckFailed', 'ConditionalCheckFailed', 'ConditionalCheckFailed', 'None', 'None', 'None', 'None'));
    const id = transactionIdFor('debit:run:r1');
    mock.on(GetCommand, { Key: keys.transactionId(id) }).resolves({ Item: { account_id: accountId, seq: 3 } });
    mock.on(GetCommand, { Key: keys.transaction(accountId, 3) }).resolves({
      Item: { id, user_id: accountId, type: 'debit', status: 'completed', amount: 4, seq: 3, requested_micro_usd: 6, shortfall_micro_usd: 2 },
    });
    const result = await debit(6);
    assert.deepEqual([result.replayed, result.transaction.amount, result.requestedMicroUsd, result.shortfallMicroUsd], [true, 4, 6, 2]);
  });

  test('no account, or an amount that is not a positive integer, is refused before any write', async () => {
    reads({ seq: 0 });
    await assert.rejects(debit(5), NotFoundError);
    await assert.rejects(debit(0), RangeError);
    await assert.rejects(debit(1.5), RangeError);
    assert.equal(writes().length, 0);
  });

  test("debitWith: the caller sends the items first in its own transaction; its own items' refusal comes back to it", async () => {
    reads({ seq: 0 }, 10);
    const sent: unknown[][] = [];
    const result = await debit(4, async (items) => {
      sent.push(items);
    });
    assert.equal(result.transaction.amount, 4);
    assert.equal(sent[0]!.length, ENTRY_ITEM_COUNT);
    const theirs = cancelled(...Array.from({ length: ENTRY_ITEM_COUNT }, () => 'None'), 'ConditionalCheckFailed');
    await assert.rejects(
      debit(4, async () => {
        throw theirs;
      }),
      (e) => e === theirs,
    );
  });

  test('debitWith: an id already taken while its own items are refused is the caller’s refusal, not a replay of a debit someone else wrote', async () => {
    reads({ seq: 0 }, 10);
    const reasons = Array.from({ length: ENTRY_ITEM_COUNT }, () => 'None');
    reasons[1] = 'ConditionalCheckFailed';
    const both = cancelled(...reasons, 'ConditionalCheckFailed');
    await assert.rejects(
      debit(4, async () => {
        throw both;
      }),
      (e) => e === both,
    );
    assert.equal(mock.commandCalls(GetCommand, { Key: keys.transactionId(transactionIdFor('debit:run:r1')) }).length, 0, 'the stored debit is not read');
  });
});

describe('refund', () => {
  const debitId = randomUUID();
  const debitItem = (extra: Record<string, unknown> = {}) => ({
    Item: { id: debitId, user_id: accountId, type: 'debit', status: 'completed', amount: 5_000_000, description: 'Run r1', seq: 7, ...extra },
  });
  function stored(extra: Record<string, unknown> = {}) {
    mock.on(GetCommand, { Key: keys.transactionId(debitId) }).resolves({ Item: { account_id: accountId, seq: 7 } });
    mock.on(GetCommand, { Key: keys.transaction(accountId, 7) }).resolves(debitItem(extra));
    reads({ seq: 9 });
  }

  test("by default all the debit has left: the balance raised, the refund naming it, the debit's refunded amount raised within its amount", async () => {
    stored({ refunded_micro_usd: 1_000_000 });
    mock.on(TransactWriteCommand).resolves({});
    const refund = await repo.refund({ id: 'r-1', debitId });
    assert.deepEqual([refund.type, refund.status, refund.amount, refund.user_id], ['refund', 'completed', 4_000_000, accountId]);
    assert.deepEqual(refund.metadata, { refunds_transaction_id: debitId });
    assert.equal(refund.description, 'Refund of Run r1');
    const items = writes()[0]!;
    assert.equal(items.length, ENTRY_ITEM_COUNT + 1);
    assert.equal(items[0]!.Update!.ExpressionAttributeValues![':amount'], 4_000_000);
    assert.deepEqual(items[ENTRY_ITEM_COUNT]!.Update, {
      TableName: 't',
      Key: keys.transaction(accountId, 7),
      UpdateExpression: 'ADD refunded_micro_usd :amount',
      ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(refunded_micro_usd) OR refunded_micro_usd <= :most)',
      ExpressionAttributeValues: { ':amount': 4_000_000, ':most': 1_000_000 },
    });
  });

  test('part of it, with a description', async () => {
    stored();
    mock.on(TransactWriteCommand).resolves({});
    const refund = await repo.refund({ id: 'r-2', debitId, amountMicroUsd: 1_500_000, description: 'Goodwill' });
    assert.deepEqual([refund.amount, refund.description], [1_500_000, 'Goodwill']);
  });

  test('unknown, not a debit, a failed debit, more than is left: refused before any write', async () => {
    mock.on(GetCommand).resolves({});
    await assert.rejects(repo.refund({ id: 'r', debitId }), TransactionNotFoundError);
    mock.reset();
    stored({ type: 'credit' });
    await assert.rejects(repo.refund({ id: 'r', debitId }), NotRefundableError);
    mock.reset();
    stored({ status: 'failed' });
    await assert.rejects(repo.refund({ id: 'r', debitId }), NotRefundableError);
    mock.reset();
    stored({ refunded_micro_usd: 5_000_000 });
    await assert.rejects(repo.refund({ id: 'r', debitId }), RefundExceedsDebitError);
    mock.reset();
    stored({ refunded_micro_usd: 4_000_000 });
    await assert.rejects(repo.refund({ id: 'r', debitId, amountMicroUsd: 1_000_001 }), /at most 1 USD can be refunded; 1.000001 USD was asked/);
    assert.equal(writes().length, 0);
  });

  test('a refund that lost the race to another reads the debit again and is refused', async () => {
    mock.on(GetCommand, { Key: keys.transactionId(debitId) }).resolves({ Item: { account_id: accountId, seq: 7 } });
    mock
      .on(GetCommand, { Key: keys.transaction(accountId, 7) })
      .resolvesOnce(debitItem())
      .resolves(debitItem({ refunded_micro_usd: 4_000_000 }));
    reads({ seq: 9 });
    mock.on(TransactWriteCommand).rejects(refusedAt(ENTRY_ITEM_COUNT, 'ConditionalCheckFailed', ENTRY_ITEM_COUNT + 1));
    await assert.rejects(repo.refund({ id: 'r-3', debitId, amountMicroUsd: 2_000_000 }), RefundExceedsDebitError);
    assert.equal(writes().length, 1);
  });
});

describe('reads', () => {
  test('day counters: one consistent Query of the days in range, oldest first', async () => {
    mock.on(QueryCommand).resolves({ Items: [{ day: '2026-01-02', first_seq: 3, last_seq: 9, debit_completed: 6, credit_completed: 1 }] });
    assert.deepEqual(await repo.days(accountId, '2026-01-01', '2026-01-31'), [
      { day: '2026-01-02', first_seq: 3, last_seq: 9, counts: { credit_completed: 1, debit_completed: 6 } },
    ]);
    const input = mock.commandCalls(QueryCommand)[0]!.args[0].input;
    assert.deepEqual(input.ExpressionAttributeValues, {
      ':pk': `ACCOUNT#${accountId}`,
      ':from': keys.transactionDay(accountId, '2026-01-01').sk,
      ':to': keys.transactionDay(accountId, '2026-01-31').sk,
    });
    assert.equal(input.ConsistentRead, true);
  });

  test('entries: a range of positions, newest first, of the ledger or of one stream; a Limit reads no more than asked', async () => {
    mock.on(QueryCommand).resolves({ Items: [{ ...keys.transaction(accountId, 5), seq: 5, search_text: 'x', account_id: accountId }] });
    const [entry] = await repo.entries(accountId, { top: 5, bottom: 3 }, { limit: 2 });
    assert.deepEqual(entry, { seq: 5 });
    await repo.entries(accountId, { top: 5, bottom: 3, combo: 'refund_completed' });
    const [ledger, stream] = mock.commandCalls(QueryCommand).map((c) => c.args[0].input);
    assert.deepEqual(
      [ledger!.ExpressionAttributeValues![':from'], ledger!.ExpressionAttributeValues![':to'], ledger!.Limit],
      ['TXN#000000000003', 'TXN#000000000005', 2],
    );
    assert.equal(ledger!.ScanIndexForward, false);
    assert.deepEqual(
      [stream!.ExpressionAttributeValues![':from'], stream!.ExpressionAttributeValues![':to']],
      ['TXNBY#refund#completed#000000000003', 'TXNBY#refund#completed#000000000005'],
    );
  });

  test('block counters hold positions 1-100, 101-200, …', () => {
    assert.deepEqual([blockOf(1), blockOf(BLOCK_SIZE), blockOf(BLOCK_SIZE + 1)], [0, 0, 1]);
  });
});

test('the service: ids derived from a name are stable UUIDs; a transaction by id is its view', async () => {
  assert.equal(transactionIdFor('debit:run:r1'), transactionIdFor('debit:run:r1'));
  assert.notEqual(transactionIdFor('debit:run:r1'), transactionIdFor('debit:run:r2'));
  mock.on(GetCommand).resolves({});
  assert.equal(await billing(table).transaction('nope'), undefined);
});
