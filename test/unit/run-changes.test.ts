import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, test } from 'vitest';
import { releaseSlot } from '#accounts/index.js';
import { activityUpdate, billing } from '#billing/index.js';
import { keys } from '#platform/table/keys.js';
import type { Run, RunEventData } from '#runs/model.js';
import { type RunChange, type RunEnding, runs } from '#runs/run-changes.js';
import { runDebitId } from '#runs/run-money.js';
import { settlements } from '#settlement/index.js';
import type { UsageMeter } from '#usage/index.js';
import { cancelled, mockedDynamoDb, throttled } from '../helpers/dynamodb-mock.js';
import { runFixture } from '../helpers/run-fixture.js';

const { mock, table } = mockedDynamoDb();
const ACCOUNT = randomUUID();
const RUN_ID = 'run_000000001AAAAAAAAAAAAAAAA';
const AT = new Date('2026-01-02T03:04:05.000Z');
const windows = { Update: { TableName: 't', Key: keys.usageWindows(ACCOUNT), UpdateExpression: 'SET x = :x' } };

const runOf = (fields: Partial<Run> = {}): Run =>
  runFixture({ id: RUN_ID, account_id: ACCOUNT, machine_id: 'mch_000000001AAAAAAAAAAAAAAAA', event_seq: 4, lease_owner: 'worker-1', ...fields });
const status = (value: Run['status']): RunEventData => ({ type: 'run.status', data: { status: value } });
const ending = (fields: Partial<RunEnding> = {}): RunEnding => ({
  at: AT,
  costMicroUsd: 0,
  event: { id: 'evt-1', type: 'run.completed', data: { id: RUN_ID } },
  releasesSlot: false,
  ...fields,
});
const transactions = () => mock.commandCalls(TransactWriteCommand).map((call) => call.args[0].input.TransactItems!);
/** The runs store with its settlement recording through `record`, paying from the mocked ledger. */
const store = (record: UsageMeter['record'] = async () => ({ item: windows, extraMicroUsd: 0 })) =>
  runs(table, settlements(table, { meter: { record }, wallet: billing(table) }));
const end = (fields: Partial<RunChange> = {}): RunChange => ({
  set: { status: 'completed' },
  from: ['running'],
  events: [status('completed')],
  ends: ending(),
  ...fields,
  ...(fields.set ? { set: fields.set } : {}),
});

/** The log's newest page ends at `lastSeq` (what a change of a running run reads first). */
const logEndsAt = (lastSeq: number) => mock.on(QueryCommand).resolves({ Items: lastSeq ? [{ last_seq: lastSeq }] : [] });

beforeEach(() => {
  mock.reset();
  logEndsAt(4);
});

describe('a change of a run', () => {
  test('of a running run: its events follow the log’s end, past event_seq where the run’s deltas lie, on condition of the event_seq read', async () => {
    mock.on(TransactWriteCommand).resolves({});
    logEndsAt(7);
    const run = runOf();
    const changed = await store().change(run, { set: { wait: null }, from: ['running'], events: [status('running')] });
    assert.equal(changed?.event_seq, 8);
    const [update, page] = transactions()[0]!;
    assert.equal(update!.Update!.ExpressionAttributeValues![':seen_seq'], 4);
    assert.equal(update!.Update!.ExpressionAttributeValues![':event_seq'], 8);
    assert.deepEqual({ pk: page!.Put!.Item!.pk, sk: page!.Put!.Item!.sk }, keys.runEvent(RUN_ID, 8));
    assert.equal(page!.Put!.ConditionExpression, 'attribute_not_exists(pk)');
    const query = mock.commandCalls(QueryCommand)[0]!.args[0].input;
    assert.equal(query.ScanIndexForward, false);
    assert.equal(query.ConsistentRead, true);
  });

  test('a change that says where the log ends (afterSeq), or of a run not running, reads nothing', async () => {
    mock.on(TransactWriteCommand).resolves({});
    assert.equal((await store().change(runOf(), { set: {}, from: ['running'], events: [status('running')], afterSeq: 6 }))?.event_seq, 7);
    assert.equal((await store().change(runOf({ status: 'waiting' }), { set: {}, from: ['waiting'], events: [status('running')] }))?.event_seq, 5);
    assert.equal(mock.commandCalls(QueryCommand).length, 0);
    assert.deepEqual(
      transactions().map((items) => items[1]!.Put!.Item!.sk),
      [keys.runEvent(RUN_ID, 7).sk, keys.runEvent(RUN_ID, 5).sk],
    );
  });

  test('without cost or end: the run’s own items alone, the run as changed', async () => {
    mock.on(TransactWriteCommand).resolves({});
    const run = runOf();
    const changed = await store(async () => assert.fail('no cost, nothing recorded')).change(run, { set: { wait: null }, from: ['running'], events: [] });
    assert.deepEqual(changed, { ...run, wait: null, event_seq: 4 });
    assert.equal(transactions()[0]!.length, 1);
  });

  test('a rise of its usage cost is recorded in the windows in the same transaction; its extra-funded part raises the run’s extra', async () => {
    mock.on(TransactWriteCommand).resolves({});
    const recorded: number[] = [];
    const run = runOf({ usage: { input_tokens: 0, output_tokens: 0, cost_micro_usd: 100 }, extra_micro_usd: 30 });
    const changed = await store(async (_account, cost) => {
      recorded.push(cost);
      return { item: windows, extraMicroUsd: cost };
    }).change(run, { set: { usage: { input_tokens: 1, output_tokens: 1, cost_micro_usd: 350 } }, from: ['running'], events: [] });
    assert.deepEqual(recorded, [250]);
    assert.equal(changed?.extra_micro_usd, 280);
    const [update, usage] = transactions()[0]!;
    assert.equal(update!.Update!.ExpressionAttributeValues![':extra_micro_usd'], 280);
    assert.deepEqual(usage, windows);
  });

  test('a refusal of the run’s own items, or of another part and the run’s, is undefined: the caller reads again', async () => {
    for (const reasons of [
      ['ConditionalCheckFailed', 'None'],
      ['None', 'ConditionalCheckFailed', 'None'],
    ]) {
      mock.reset();
      logEndsAt(4);
      mock.on(TransactWriteCommand).rejects(cancelled(...reasons));
      const change: RunChange = { set: { wait: null }, from: ['running'], events: [status('running')] };
      assert.equal(await store().change(runOf(), change), undefined, reasons.join());
    }
  });

  test('an end without what its end moves is refused before anything is written (and a change that is no end may not carry one)', async () => {
    await assert.rejects(store().change(runOf(), { set: { status: 'completed' }, from: ['running'], events: [] }), /ends it exactly when/);
    await assert.rejects(store().change(runOf(), { set: { wait: null }, from: ['running'], events: [], ends: ending() }), /ends it exactly when/);
    assert.equal(transactions().length, 0);
  });
});

describe('the end of a run', () => {
  test('settles its day’s cost, its account event and its slot with the run’s items, in named order; runs afterCommit once', async () => {
    mock.on(TransactWriteCommand).resolves({});
    const after: Run[] = [];
    const run = runOf({ concurrency_slot: true });
    const changed = await store().change(
      run,
      end({ ends: ending({ costMicroUsd: 700, releasesSlot: true }), afterCommit: async (ended) => void after.push(ended) }),
    );
    assert.equal(changed?.status, 'completed');
    assert.deepEqual(
      after.map((r) => r.status),
      ['completed'],
    );
    const [update, page, day, event, slot, ...rest] = transactions()[0]!;
    assert.deepEqual(update!.Update!.Key, keys.run(RUN_ID));
    assert.ok(page!.Put!.Item!.entity === 'run_event_page');
    assert.deepEqual(day, activityUpdate('t', ACCOUNT, '2026-01-02', { cost_micro_usd: 700 }));
    assert.equal(event!.Put!.Item!.entity, 'account_event');
    assert.deepEqual(slot, releaseSlot('t', ACCOUNT));
    assert.deepEqual(rest, []);
  });

  test('with extra-funded usage, its one debit is written first in the same transaction; other changes write none', async () => {
    mock.on(GetCommand, { Key: keys.transactionTotals(ACCOUNT) }).resolves({ Item: { seq: 3 } });
    mock.on(GetCommand, { Key: keys.account(ACCOUNT) }).resolves({ Item: { balance_micro_usd: 1_000 } });
    mock.on(TransactWriteCommand).resolves({});
    const run = runOf({ extra_micro_usd: 250 });
    await store().change(run, { set: { wait: null }, from: ['running'], events: [] });
    await store().change(run, end());
    const [unpaid, ended] = transactions();
    assert.equal(unpaid!.length, 1);
    const debit = ended!.map((item) => item.Put?.Item).find((item) => item?.entity === 'transaction')!;
    assert.deepEqual([debit.id, debit.amount, debit.status, debit.metadata], [runDebitId(RUN_ID), 250, 'completed', { run_id: RUN_ID }]);
    const runUpdate = ended!.findIndex((item) => item.Update?.Key?.sk === keys.run(RUN_ID).sk && item.Update?.Key?.pk === keys.run(RUN_ID).pk);
    assert.ok(runUpdate > 0 && ended!.slice(0, runUpdate).every((item) => item.Put?.Item?.entity !== 'run_event_page'), 'the debit’s items come first');
  });

  test('refused by the run’s own condition it is undefined even though the debit’s id is taken (the end that won wrote it), and runs nothing after', async () => {
    mock.on(GetCommand, { Key: keys.transactionTotals(ACCOUNT) }).resolves({ Item: { seq: 3 } });
    mock.on(GetCommand, { Key: keys.account(ACCOUNT) }).resolves({ Item: { balance_micro_usd: 1_000 } });
    const run = runOf({ extra_micro_usd: 250 });
    // The ledger's items, then the run's update and page, then the account event.
    mock.on(TransactWriteCommand).callsFake((input: { TransactItems: unknown[] }) => {
      const reasons = input.TransactItems.map(() => 'None');
      reasons[1] = 'ConditionalCheckFailed';
      reasons[input.TransactItems.length - 3] = 'ConditionalCheckFailed';
      throw cancelled(...reasons);
    });
    let after = 0;
    const ended = await store().change(run, end({ afterCommit: async () => void after++ }));
    assert.equal(ended, undefined);
    assert.equal(after, 0);
    assert.equal(transactions().length, 1);
  });

  test('an end refused for what it holds is settled in its unrecordable form instead', async () => {
    mock
      .on(TransactWriteCommand)
      .rejectsOnce(cancelled('ValidationError', 'None', 'None'))
      .resolves({});
    const run = runOf();
    const failed: RunChange = { ...end(), set: { status: 'failed', failure: { code: 'internal_error', message: 'x', retryable: false } } };
    const ended = await store().change(run, { ...end({ set: { status: 'completed', output: 'deep' } }), unrecordable: failed });
    assert.equal(ended?.status, 'failed');
    assert.equal(transactions().length, 2);
  });

  test('any other failure propagates unchanged', async () => {
    const error = throttled();
    mock.on(TransactWriteCommand).rejects(error);
    await assert.rejects(store().change(runOf(), end()), (e) => e === error);
  });
});
