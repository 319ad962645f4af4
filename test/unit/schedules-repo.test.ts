import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, test } from 'vitest';
import { newScheduleId } from '#platform/ids.js';
import { keys } from '#platform/table/keys.js';
import { ScheduleLimitReachedError } from '#schedules/errors.js';
import { MAX_SCHEDULES_PER_ACCOUNT, type Schedule } from '#schedules/model.js';
import { schedulesRepo } from '#schedules/schedules-repository.js';
import { cancelled, conditionFailed, mockedDynamoDb, throttled } from '../helpers/dynamodb-mock.js';

const { mock, table } = mockedDynamoDb();
const repo = schedulesRepo(table);
const accountId = randomUUID();

const schedule = (overrides: Partial<Schedule> = {}): Schedule => ({
  id: newScheduleId(),
  account_id: accountId,
  name: 'n',
  expression: 'rate(1 minute)',
  timezone: 'UTC',
  target: { workflow_version_id: randomUUID(), entry_node_ids: [randomUUID()] },
  enabled: true,
  next_fire_at: '2027-03-01T10:01:00.000Z',
  last_fired_at: null,
  last_error: null,
  anchored_at: '2027-03-01T10:00:00.000Z',
  revision: 1,
  created_at: '2027-03-01T10:00:00.000Z',
  updated_at: '2027-03-01T10:00:00.000Z',
  ...overrides,
});

beforeEach(() => mock.reset());

describe('schedules repository', () => {
  test('create puts the owner item, then the schedule (in the due index) with the account’s count below 50', async () => {
    mock.on(PutCommand).resolves({});
    mock.on(TransactWriteCommand).resolves({});
    const s = schedule();
    await repo.create(s);
    const owner = mock.commandCalls(PutCommand)[0]!.args[0].input;
    assert.deepEqual(owner.Item, { ...keys.scheduleOwner(s.id), entity: 'schedule_owner', schedule_id: s.id, account_id: accountId });
    const [counter, put] = mock.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    assert.deepEqual(counter?.Update?.Key, keys.scheduleCount(accountId));
    assert.equal(counter?.Update?.ExpressionAttributeValues?.[':limit'], MAX_SCHEDULES_PER_ACCOUNT);
    assert.deepEqual(put?.Put?.Item, { ...keys.schedule(accountId, s.id), ...keys.scheduleDueIndex(s.next_fire_at!, s.id), entity: 'schedule', ...s });
  });

  test('past the limit: 409 schedule_limit_reached, and the owner item is taken back', async () => {
    mock.on(PutCommand).resolves({});
    mock.on(DeleteCommand).resolves({});
    mock.on(TransactWriteCommand).rejects(cancelled('ConditionalCheckFailed', 'None'));
    const s = schedule();
    await assert.rejects(repo.create(s), (e) => e instanceof ScheduleLimitReachedError && e.code === 'schedule_limit_reached' && e.kind === 'conflict');
    assert.deepEqual(mock.commandCalls(DeleteCommand)[0]!.args[0].input.Key, keys.scheduleOwner(s.id));
  });

  test('save puts the whole schedule on the revision it read: out of the due index while disabled; a refused condition is undefined, other errors pass', async () => {
    mock.on(PutCommand).resolves({});
    const s = schedule();
    const off = { ...s, enabled: false, next_fire_at: null };
    assert.deepEqual(await repo.save(s, off), { ...off, revision: 2 });
    const input = mock.commandCalls(PutCommand)[0]!.args[0].input;
    assert.equal(input.ConditionExpression, 'attribute_exists(pk) AND revision = :revision');
    assert.equal(input.ExpressionAttributeValues?.[':revision'], 1);
    assert.equal('gsi1pk' in input.Item!, false);
    mock.on(PutCommand).rejects(conditionFailed());
    assert.equal(await repo.save(s, off), undefined);
    mock.on(PutCommand).rejects(throttled());
    await assert.rejects(repo.save(s, off), (e: Error) => e.name === 'ProvisionedThroughputExceededException');
  });

  test('find reads the owner, then the schedule under that account, both consistently; a malformed id reads nothing', async () => {
    const s = schedule();
    mock.on(GetCommand, { Key: keys.scheduleOwner(s.id) }).resolves({ Item: { account_id: accountId } });
    mock.on(GetCommand, { Key: keys.schedule(accountId, s.id) }).resolves({ Item: { ...keys.schedule(accountId, s.id), entity: 'schedule', ...s } });
    assert.deepEqual(await repo.find(s.id), s);
    assert.equal(
      mock.commandCalls(GetCommand).every((c) => c.args[0].input.ConsistentRead === true),
      true,
    );
    mock.reset();
    assert.equal(await repo.find('sch_nope'), undefined);
    assert.equal(await repo.get(accountId, '../x'), undefined);
    assert.equal(mock.commandCalls(GetCommand).length, 0);
  });

  test('due queries the sparse index up to now, every schedule of that very instant included', async () => {
    mock.on(QueryCommand).resolves({ Items: [] });
    await repo.due(new Date('2027-03-01T10:01:00.000Z'), 100);
    const input = mock.commandCalls(QueryCommand)[0]!.args[0].input;
    assert.equal(input.IndexName, 'gsi1');
    assert.deepEqual(input.ExpressionAttributeValues, { ':pk': keys.scheduleDuePartition, ':bound': '2027-03-01T10:01:00.000Z#~' });
    assert.equal(keys.scheduleDueIndex('2027-03-01T10:01:00.000Z', newScheduleId()).gsi1sk <= '2027-03-01T10:01:00.000Z#~', true);
  });
});
