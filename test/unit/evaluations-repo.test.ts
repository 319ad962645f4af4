import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, test } from 'vitest';
import { evaluationsRepo } from '#evaluations/evaluations-repository.js';
import type { Attempt, Evaluation, EvaluationCase } from '#evaluations/model.js';
import { ACCOUNT_EVENT_RETENTION_SECONDS } from '#events/account-events.js';
import { UnavailableError } from '#platform/errors.js';
import { newEvaluationId } from '#platform/ids.js';
import { keys } from '#platform/table/keys.js';
import { cancelled, mockedDynamoDb, throttled } from '../helpers/dynamodb-mock.js';

const { mock, table } = mockedDynamoDb();
const repo = evaluationsRepo(table);
const accountId = randomUUID();

const evaluation = (overrides: Partial<Evaluation> = {}): Evaluation => ({
  id: newEvaluationId(),
  account_id: accountId,
  name: 'e',
  status: 'running',
  harness_id: 'h_000000000AAAAAAAAAAAAAAAA',
  machine_id: 'mch_000000000AAAAAAAAAAAAAAAA',
  attempts_per_case: 2,
  run: false,
  case_ids: ['a', 'b'],
  recorded_attempts: 0,
  ended_attempts: 0,
  results: null,
  failure: null,
  created_at: '2026-03-01T00:00:00.000Z',
  completed_at: null,
  ...overrides,
});
const cases: EvaluationCase[] = [
  { id: 'a', position: 0, input: 'hi', expected: { type: 'exact', value: 'hi' } },
  { id: 'b', position: 1, input: { steps: [] }, expected: null },
];
const attempt = (overrides: Partial<Attempt> = {}): Attempt => ({
  case_id: 'b',
  position: 1,
  attempt_index: 1,
  run_id: 'run_000000000AAAAAAAAAAAAAAAA',
  recorded_at: '2026-03-01T00:00:01.000Z',
  run_status: null,
  passed: null,
  check_error: null,
  ended_at: null,
  ...overrides,
});
const transactions = () => mock.commandCalls(TransactWriteCommand).map((call) => call.args[0].input.TransactItems!);

beforeEach(() => mock.reset());

describe('create', () => {
  test('one transaction: the head with its gsi1 entry on a free key, then one item per case', async () => {
    mock.on(TransactWriteCommand).resolves({});
    const e = evaluation();
    await repo.create(e, cases);
    const [items] = transactions();
    assert.equal(items?.length, 3);
    assert.deepEqual(items?.[0]?.Put?.Item, { ...keys.evaluation(e.id), ...keys.evaluationIndex(accountId, e.created_at, e.id), entity: 'evaluation', ...e });
    assert.equal(items?.[0]?.Put?.ConditionExpression, 'attribute_not_exists(pk)');
    assert.deepEqual(items?.[2]?.Put?.Item, {
      ...keys.evaluationCase(e.id, 1),
      entity: 'evaluation_case',
      evaluation_id: e.id,
      case_id: 'b',
      position: 1,
      input: { steps: [] },
      expected: null,
    });
    assert.equal(keys.evaluationCase(e.id, 1).sk, 'CASE#001');
  });
});

describe('reads', () => {
  test('get: a malformed id reads nothing; another account’s head is undefined, like an unknown one', async () => {
    const e = evaluation();
    assert.equal(await repo.get(accountId, 'not-an-id'), undefined);
    assert.equal(mock.commandCalls(GetCommand).length, 0);
    mock.on(GetCommand).resolves({ Item: { ...keys.evaluation(e.id), entity: 'evaluation', ...e } });
    assert.deepEqual(await repo.get(accountId, e.id), e);
    assert.equal(await repo.get(randomUUID(), e.id), undefined);
    const [read] = mock.commandCalls(GetCommand);
    assert.deepEqual(read?.args[0].input.Key, keys.evaluation(e.id));
    assert.equal(read?.args[0].input.ConsistentRead, true);
  });

  test('whole: one consistent Query of the partition, split into head, cases and attempts', async () => {
    const e = evaluation();
    const filled = attempt({ run_status: 'completed', passed: null, ended_at: '2026-03-01T00:00:02.000Z' });
    mock.on(QueryCommand).resolves({
      Items: [
        { ...keys.evaluationAttempt(e.id, 1, 1), entity: 'evaluation_attempt', evaluation_id: e.id, ...filled },
        {
          ...keys.evaluationCase(e.id, 0),
          entity: 'evaluation_case',
          evaluation_id: e.id,
          case_id: 'a',
          position: 0,
          input: 'hi',
          expected: cases[0]!.expected,
        },
        { ...keys.evaluationCase(e.id, 1), entity: 'evaluation_case', evaluation_id: e.id, case_id: 'b', position: 1, input: { steps: [] }, expected: null },
        { ...keys.evaluation(e.id), entity: 'evaluation', ...e },
      ],
    });
    assert.deepEqual(await repo.whole(accountId, e.id), { evaluation: e, cases, attempts: [filled] });
    const [query] = mock.commandCalls(QueryCommand);
    assert.deepEqual(query?.args[0].input.ExpressionAttributeValues, { ':pk': keys.evaluationPartition(e.id) });
    assert.equal(query?.args[0].input.ConsistentRead, true);
    assert.equal(await repo.whole(randomUUID(), e.id), undefined, 'another account’s');
  });

  test('stored results read back with their fields in the order the API shows them', async () => {
    const stored = { pass_rate: 1, per_case: [{ run_statuses: { completed: 1 }, pass_rate: 1, passed: 1, attempts: 1, case_id: 'a' }] };
    const e = evaluation({ status: 'completed', results: null });
    mock.on(GetCommand).resolves({ Item: { ...keys.evaluation(e.id), entity: 'evaluation', ...e, results: stored } });
    const results = (await repo.get(accountId, e.id))?.results;
    assert.deepEqual(Object.keys(results ?? {}), ['per_case', 'pass_rate']);
    assert.deepEqual(Object.keys(results?.per_case[0] ?? {}), ['case_id', 'attempts', 'passed', 'pass_rate', 'run_statuses']);
  });

  test('an attempt recorded without its outcome reads with null outcome fields', async () => {
    const e = evaluation();
    mock.on(GetCommand).resolves({
      Item: {
        ...keys.evaluationAttempt(e.id, 1, 1),
        entity: 'evaluation_attempt',
        case_id: 'b',
        position: 1,
        attempt_index: 1,
        run_id: 'run_x',
        recorded_at: 't',
      },
    });
    assert.deepEqual(await repo.attempt(e.id, 1, 1), attempt({ run_id: 'run_x', recorded_at: 't' }));
  });

  test('runAttempts: the slots a run fills, from its lookup partition', async () => {
    mock.on(QueryCommand).resolves({ Items: [{ evaluation_id: 'eval_1', account_id: accountId, position: 2, attempt_index: 0 }] });
    assert.deepEqual(await repo.runAttempts('run_1'), [{ evaluation_id: 'eval_1', account_id: accountId, position: 2, attempt_index: 0 }]);
    assert.deepEqual(mock.commandCalls(QueryCommand)[0]?.args[0].input.ExpressionAttributeValues, { ':pk': keys.runAttemptPartition('run_1') });
  });

  test('list: the gsi1 partition of the account, newest first, filtered by status', async () => {
    const e = evaluation({ status: 'cancelled' });
    mock
      .on(QueryCommand)
      .resolves({ Items: [{ ...keys.evaluation(e.id), ...keys.evaluationIndex(accountId, e.created_at, e.id), entity: 'evaluation', ...e }] });
    const page = await repo.list(accountId, { status: 'cancelled' }, { limit: 5 });
    assert.deepEqual(page, { evaluations: [e], next: undefined });
    const input = mock.commandCalls(QueryCommand)[0]!.args[0].input;
    assert.equal(input.IndexName, 'gsi1');
    assert.equal(input.ScanIndexForward, false);
    assert.equal(input.ExpressionAttributeValues?.[':g'], keys.evaluationIndexPartition(accountId));
    assert.equal(input.FilterExpression, '#status = :status');
  });
});

describe('record', () => {
  test('one transaction: the free slot, the run’s lookup item, and the head’s counter on condition that it runs', async () => {
    mock.on(TransactWriteCommand).resolves({});
    const e = evaluation();
    const filled = attempt();
    assert.deepEqual(await repo.record(e, filled), { kind: 'recorded' });
    const [[slot, lookup, head]] = transactions() as [NonNullable<ReturnType<typeof transactions>[number]>];
    assert.deepEqual(slot?.Put?.Item, {
      ...keys.evaluationAttempt(e.id, 1, 1),
      entity: 'evaluation_attempt',
      evaluation_id: e.id,
      case_id: 'b',
      position: 1,
      attempt_index: 1,
      run_id: filled.run_id,
      recorded_at: filled.recorded_at,
    });
    assert.equal(slot?.Put?.ConditionExpression, 'attribute_not_exists(pk)');
    assert.deepEqual(lookup?.Put?.Item, {
      ...keys.runAttempt(filled.run_id, e.id),
      entity: 'run_attempt',
      run_id: filled.run_id,
      evaluation_id: e.id,
      account_id: accountId,
      position: 1,
      attempt_index: 1,
    });
    assert.equal(lookup?.Put?.ConditionExpression, 'attribute_not_exists(pk)');
    assert.deepEqual(head?.Update?.Key, keys.evaluation(e.id));
    assert.equal(head?.Update?.UpdateExpression, 'ADD recorded_attempts :one');
    assert.equal(head?.Update?.ConditionExpression, '#status = :running');
  });

  test('an attempt whose run has ended is recorded with its outcome and counts as ended too', async () => {
    mock.on(TransactWriteCommand).resolves({});
    const filled = attempt({ run_status: 'failed', passed: false, check_error: 'the run failed', ended_at: 't' });
    await repo.record(evaluation(), filled);
    const [[slot, , head]] = transactions() as [NonNullable<ReturnType<typeof transactions>[number]>];
    assert.deepEqual([slot?.Put?.Item?.run_status, slot?.Put?.Item?.passed, slot?.Put?.Item?.ended_at], ['failed', false, 't']);
    assert.equal(head?.Update?.UpdateExpression, 'ADD recorded_attempts :one, ended_attempts :one');
  });

  test('each refused condition is its answer: not running first, then the slot (read back), then the run elsewhere', async () => {
    const e = evaluation();
    mock.on(TransactWriteCommand).rejects(cancelled('ConditionalCheckFailed', 'ConditionalCheckFailed', 'ConditionalCheckFailed'));
    assert.deepEqual(await repo.record(e, attempt()), { kind: 'not_running' });
    const held = attempt({ run_id: 'run_other' });
    mock.on(TransactWriteCommand).rejects(cancelled('ConditionalCheckFailed', 'None', 'None'));
    mock.on(GetCommand).resolves({ Item: { ...keys.evaluationAttempt(e.id, 1, 1), ...held } });
    assert.deepEqual(await repo.record(e, attempt()), { kind: 'taken', attempt: held });
    assert.deepEqual(mock.commandCalls(GetCommand).at(-1)?.args[0].input.Key, keys.evaluationAttempt(e.id, 1, 1));
    mock.on(TransactWriteCommand).rejects(cancelled('None', 'ConditionalCheckFailed', 'None'));
    assert.deepEqual(await repo.record(e, attempt()), { kind: 'run_elsewhere' });
  });

  test('a collision with a concurrent transaction is tried again; one that never clears is a 503; other errors pass through', async () => {
    mock
      .on(TransactWriteCommand)
      .rejectsOnce(cancelled('None', 'None', 'TransactionConflict'))
      .resolvesOnce({});
    assert.deepEqual(await repo.record(evaluation(), attempt()), { kind: 'recorded' });
    assert.equal(transactions().length, 2);
    mock.reset();
    mock.on(TransactWriteCommand).rejects(cancelled('TransactionConflict', 'None', 'None'));
    await assert.rejects(repo.record(evaluation(), attempt()), UnavailableError);
    assert.equal(transactions().length, 6);
    mock.reset();
    mock.on(TransactWriteCommand).rejects(throttled());
    await assert.rejects(repo.record(evaluation(), attempt()), (e: unknown) => (e as Error).name === 'ProvisionedThroughputExceededException');
  });
});

describe('recordOutcome', () => {
  test('the slot on condition that it holds the run and has no outcome yet, with ended_attempts; false once recorded', async () => {
    mock.on(TransactWriteCommand).resolves({});
    const outcome = { run_status: 'completed' as const, passed: true, check_error: null };
    assert.equal(await repo.recordOutcome('eval_1', 3, 2, 'run_1', outcome, 't'), true);
    const [[slot, head]] = transactions() as [NonNullable<ReturnType<typeof transactions>[number]>];
    assert.deepEqual(slot?.Update?.Key, keys.evaluationAttempt('eval_1', 3, 2));
    assert.equal(slot?.Update?.ConditionExpression, 'run_id = :run AND attribute_not_exists(ended_at)');
    assert.deepEqual(slot?.Update?.ExpressionAttributeValues, {
      ':run_status': 'completed',
      ':passed': true,
      ':check_error': null,
      ':ended_at': 't',
      ':run': 'run_1',
    });
    assert.deepEqual(head?.Update?.Key, keys.evaluation('eval_1'));
    assert.equal(head?.Update?.UpdateExpression, 'ADD ended_attempts :one');
    mock.on(TransactWriteCommand).rejects(cancelled('ConditionalCheckFailed', 'None'));
    assert.equal(await repo.recordOutcome('eval_1', 3, 2, 'run_1', outcome, 't'), false);
  });
});

describe('finish', () => {
  test('leaves running once, with its event in the account’s event record in the same transaction', async () => {
    mock.on(TransactWriteCommand).resolves({});
    const e = evaluation();
    const results = { per_case: [], pass_rate: null };
    const event = { id: randomUUID(), type: 'evaluation.completed', data: { id: e.id } };
    assert.equal(await repo.finish(e, { status: 'completed', completed_at: '2026-03-02T00:00:00.000Z', results }, event), true);
    const [[head, put]] = transactions() as [NonNullable<ReturnType<typeof transactions>[number]>];
    assert.equal(head?.Update?.UpdateExpression, 'SET #status = :status, #completed_at = :completed_at, #results = :results');
    assert.equal(head?.Update?.ConditionExpression, '#status = :running');
    assert.deepEqual(head?.Update?.ExpressionAttributeValues, {
      ':status': 'completed',
      ':completed_at': '2026-03-02T00:00:00.000Z',
      ':results': results,
      ':running': 'running',
    });
    assert.deepEqual(put?.Put?.Item, {
      ...keys.accountEvent(accountId, '2026-03-02T00:00:00.000Z', event.id),
      entity: 'account_event',
      id: event.id,
      account_id: accountId,
      type: 'evaluation.completed',
      data: { id: e.id },
      created_at: '2026-03-02T00:00:00.000Z',
      ttl: Date.parse('2026-03-02T00:00:00.000Z') / 1000 + ACCOUNT_EVENT_RETENTION_SECONDS,
    });
    assert.equal(put?.Put?.ConditionExpression, 'attribute_not_exists(pk)');
    assert.equal(keys.accountEvent(accountId, 'T', 'x').pk, `ACCOUNT#${accountId}#EVENTS`);
  });

  test('a cancel or a failure writes no event; an evaluation that had left running is refused (false)', async () => {
    mock.on(TransactWriteCommand).resolves({});
    await repo.finish(evaluation(), { status: 'failed', completed_at: 't', failure: { code: 'runs_not_started', message: 'm' } });
    const [items] = transactions();
    assert.equal(items?.length, 1);
    assert.equal(items?.[0]?.Update?.UpdateExpression, 'SET #status = :status, #completed_at = :completed_at, #failure = :failure');
    mock.on(TransactWriteCommand).rejects(cancelled('ConditionalCheckFailed'));
    assert.equal(await repo.finish(evaluation(), { status: 'cancelled', completed_at: 't' }), false);
  });
});
