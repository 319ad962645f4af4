import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, test } from 'vitest';
import { acquireSlot, releaseSlot } from '#accounts/index.js';
import { activityUpdate, type billing } from '#billing/index.js';
import { keys } from '#platform/table/keys.js';
import type { TransactItem } from '#platform/table/transactions.js';
import { SETTLE_ATTEMPTS, settlements, type Work } from '#settlement/index.js';
import { cancellationOf } from '#settlement/parts.js';
import { cancelled, mockedDynamoDb } from '../helpers/dynamodb-mock.js';

const { mock, table } = mockedDynamoDb();
const ACCOUNT = randomUUID();
const AT = new Date('2026-03-04T05:06:07.000Z');
const own: TransactItem = { Update: { TableName: 't', Key: { pk: 'WORK#1', sk: 'WORK' }, UpdateExpression: 'SET done = :t' } };
const windowsItem = (n: number): TransactItem => ({ Update: { TableName: 't', Key: keys.usageWindows(ACCOUNT), UpdateExpression: `SET read_${n} = :x` } });
const sent = () => mock.commandCalls(TransactWriteCommand).map((call) => call.args[0].input.TransactItems!);

/** Settlement over the mocked table; each record reads the windows afresh (its item says which read it was built on). */
function settlementWith(wallet: Pick<ReturnType<typeof billing>, 'debitWith'> = { debitWith: async () => assert.fail('no debit expected') }) {
  const reads: number[] = [];
  const meter = {
    record: async (_account: string, cost: number) => {
      reads.push(cost);
      return { item: windowsItem(reads.length), extraMicroUsd: 0 };
    },
  };
  return { reads, settlement: settlements(table, { meter, wallet }) };
}

const work = (fields: Partial<Work<string>> = {}): Work<string> => ({
  accountId: ACCOUNT,
  subject: () => ({ items: [own], result: 'done' }),
  ...fields,
});
const ending = { at: AT, activity: { nodes: 2 }, releasesSlot: true, extraBeforeMicroUsd: 0, debit: { id: 'd', description: 'x', metadata: {} } };

beforeEach(() => mock.reset());

describe('settle', () => {
  test('builds the transaction from named parts: the subject, the usage, the day, the account event, the slot', async () => {
    mock.on(TransactWriteCommand).resolves({});
    const { settlement } = settlementWith();
    const outcome = await settlement.settle(
      work({ usageMicroUsd: 300, end: { ...ending, event: { id: 'e1', type: 'workflow_request.completed', data: {} } } }),
    );
    assert.deepEqual(outcome, { settled: true, result: 'done', extraMicroUsd: 0, unrecordable: false });
    const [subject, usage, day, event, slot, ...rest] = sent()[0]!;
    assert.deepEqual(subject, own);
    assert.deepEqual(usage, windowsItem(1));
    assert.deepEqual(day, activityUpdate('t', ACCOUNT, '2026-03-04', { nodes: 2 }));
    assert.equal(event!.Put!.Item!.id, 'e1');
    assert.deepEqual(slot, releaseSlot('t', ACCOUNT));
    assert.deepEqual(rest, []);
  });

  test('refused by the usage part alone (a window opened meanwhile): the windows are read again and the transaction rebuilt on them', async () => {
    mock.on(TransactWriteCommand).rejectsOnce(cancelled('None', 'ConditionalCheckFailed')).resolves({});
    const { settlement, reads } = settlementWith();
    assert.ok((await settlement.settle(work({ usageMicroUsd: 300 }))).settled);
    assert.deepEqual(reads, [300, 300]);
    assert.deepEqual(sent()[1]![1], windowsItem(2));
  });

  test('refused by the slot alone (the counter already 0): the end goes through without giving a slot back', async () => {
    mock
      .on(TransactWriteCommand)
      .rejectsOnce(cancelled('None', 'None', 'ConditionalCheckFailed'))
      .resolves({});
    const { settlement } = settlementWith();
    assert.ok((await settlement.settle(work({ end: ending }))).settled);
    const [first, second] = sent();
    assert.deepEqual(first!.at(-1), releaseSlot('t', ACCOUNT));
    assert.equal(second!.length, 2, 'the subject and the day, no slot');
  });

  test('refused by the subject (with or without others): not settled, named, nothing run after; never retried', async () => {
    for (const reasons of [
      ['ConditionalCheckFailed', 'None', 'None'],
      ['ConditionalCheckFailed', 'None', 'ConditionalCheckFailed'],
    ]) {
      mock.reset();
      mock.on(TransactWriteCommand).rejects(cancelled(...reasons));
      let after = 0;
      const { settlement } = settlementWith();
      const outcome = await settlement.settle(work({ end: ending, afterCommit: async () => void after++ }));
      assert.deepEqual(outcome, { settled: false, refusedBy: 'subject' });
      assert.equal(after, 0);
      assert.equal(sent().length, 1);
    }
  });

  test('a failure of what follows the commit is its own error, never read as a refusal of the settlement', async () => {
    mock.on(TransactWriteCommand).resolves({});
    const downstream = cancelled('ConditionalCheckFailed');
    const { settlement } = settlementWith();
    await assert.rejects(
      settlement.settle(
        work({
          afterCommit: async () => {
            throw downstream;
          },
        }),
      ),
      (e) => e === downstream,
    );
    assert.equal(sent().length, 1, 'committed once, not sent again');
  });

  test('another transaction in the way is sent again; a refusal that keeps coming back gives up with 503', async () => {
    mock.on(TransactWriteCommand).rejectsOnce(cancelled('TransactionConflict', 'None')).resolves({});
    assert.ok((await settlementWith().settlement.settle(work({ end: ending }))).settled);
    assert.equal(sent().length, 2);
    mock.reset();
    mock.on(TransactWriteCommand).rejects(cancelled('None', 'ConditionalCheckFailed'));
    await assert.rejects(settlementWith().settlement.settle(work({ usageMicroUsd: 1 })), { code: 'unavailable' });
    assert.equal(sent().length, SETTLE_ATTEMPTS);
  });

  test('refused for what it holds: its unrecordable form is settled instead, once; without one the error is thrown as it is', async () => {
    const invalid = cancelled('ValidationError', 'None');
    mock.on(TransactWriteCommand).rejectsOnce(invalid).resolves({});
    const outcome = await settlementWith().settlement.settle(
      work({ end: ending, unrecordable: () => work({ subject: () => ({ items: [own], result: 'failed instead' }), end: ending }) }),
    );
    assert.deepEqual(outcome, { settled: true, result: 'failed instead', extraMicroUsd: 0, unrecordable: true });
    mock.reset();
    mock.on(TransactWriteCommand).rejects(invalid);
    await assert.rejects(settlementWith().settlement.settle(work({ end: ending })), (e) => e === invalid);
  });

  test('an end with extra-funded usage pays its one debit, the ledger’s items first: the reasons are read by part after them', async () => {
    const ledger: TransactItem[] = [{ Put: { TableName: 't', Item: { pk: 'L', sk: '1' } } }, { Put: { TableName: 't', Item: { pk: 'L', sk: '2' } } }];
    const debits: number[] = [];
    const wallet = {
      debitWith: async (input: { amountMicroUsd: number }, send: (items: TransactItem[]) => Promise<void>) => {
        debits.push(input.amountMicroUsd);
        await send(ledger);
        return undefined as never;
      },
    };
    mock
      .on(TransactWriteCommand)
      .rejectsOnce(cancelled('None', 'None', 'None', 'None', 'ConditionalCheckFailed'))
      .resolves({});
    const { settlement } = settlementWith(wallet);
    assert.ok((await settlement.settle(work({ end: { ...ending, extraBeforeMicroUsd: 400 } }))).settled);
    assert.deepEqual(debits, [400, 400]);
    assert.deepEqual(sent()[0]!.slice(0, 3), [...ledger, own]);
    assert.equal(sent()[1]!.length, 4, 'the slot (at 0) left out on the second try, read by its name after the ledger’s items');
  });
});

describe('start', () => {
  test('the subject, its day’s count and its slot; refused by the slot: 429 with a wait; by the subject: refused', async () => {
    mock.on(TransactWriteCommand).resolves({});
    const { settlement } = settlementWith();
    assert.equal(await settlement.start({ accountId: ACCOUNT, subject: [own], at: AT.toISOString(), activity: { runs: 1 }, concurrencyLimit: 3 }), 'started');
    assert.deepEqual(sent()[0], [own, activityUpdate('t', ACCOUNT, '2026-03-04', { runs: 1 }), acquireSlot('t', ACCOUNT, 3)]);
    mock.reset();
    mock.on(TransactWriteCommand).rejects(cancelled('None', 'None', 'ConditionalCheckFailed'));
    await assert.rejects(settlement.start({ accountId: ACCOUNT, subject: [own], at: AT.toISOString(), activity: { runs: 1 }, concurrencyLimit: 3 }), {
      code: 'rate_limited',
    });
    mock.reset();
    mock.on(TransactWriteCommand).rejects(cancelled('ConditionalCheckFailed', 'None'));
    assert.equal(await settlement.start({ accountId: ACCOUNT, subject: [own], at: AT.toISOString(), activity: { requests: 1 } }), 'refused');
  });
});

describe('cancellationOf', () => {
  test('reads each part’s own reasons, whatever its size', () => {
    const parts = [
      { name: 'debit' as const, items: [own, own, own] },
      { name: 'subject' as const, items: [own, own] },
      { name: 'slot' as const, items: [own] },
    ];
    assert.deepEqual(cancellationOf(cancelled('None', 'None', 'None', 'None', 'TransactionConflict', 'ConditionalCheckFailed'), parts), {
      refused: ['slot'],
      conflict: true,
    });
    assert.equal(cancellationOf(new Error('other'), parts), undefined);
  });
});
