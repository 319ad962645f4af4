import assert from 'node:assert/strict';
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { beforeEach, describe, test } from 'vitest';
import { keys } from '#platform/table/keys.js';
import { accountEventReader } from '#webhooks/account-event-reader.js';
import { deliveriesRepo } from '#webhooks/deliveries-repository.js';
import type { DeliveryMessage } from '#webhooks/delivery-messages.js';
import { dispatchEvent } from '#webhooks/dispatch.js';
import { endpointsRepo } from '#webhooks/endpoints-repository.js';
import { deliveryIdOf } from '#webhooks/model.js';
import { conditionFailed, mockedDynamoDb } from '../helpers/dynamodb-mock.js';
import { EVENT_FIXTURE, endpointFixture } from '../helpers/webhook-fixtures.js';

const { mock, table } = mockedDynamoDb();
const sent: DeliveryMessage[] = [];
const NOW = new Date('2026-03-01T00:00:10.000Z');
const deps = {
  events: accountEventReader(table),
  endpoints: endpointsRepo(table),
  deliveries: deliveriesRepo(table),
  send: async (message: DeliveryMessage) => {
    sent.push(message);
  },
  now: () => NOW,
};

const EVENT = EVENT_FIXTURE;
const notice = { account_id: 'acc', event_id: EVENT.id, event_type: EVENT.type, created_at: EVENT.created_at };
const endpointItem = (id: string) => endpointFixture({ id });
const A = 'whe_0mwvyhd7oIwogRIxo-Bl0thkA';
const B = 'whe_0mwvyhd7oIwogRIxo-Bl0thkB';

beforeEach(() => {
  mock.reset();
  sent.length = 0;
  mock.on(GetCommand).resolves({ Item: { ...keys.accountEvent('acc', EVENT.created_at, EVENT.id), account_id: 'acc', ...EVENT } });
  mock.on(QueryCommand).resolves({ Items: [endpointItem(A), endpointItem(B)] });
});

describe('dispatchEvent', () => {
  test('reads the event under the notice’s account, one delivery per subscribed endpoint, each with its first message', async () => {
    mock.on(PutCommand).resolves({});
    assert.equal(await dispatchEvent(deps, notice, 'msg-1'), 2);
    assert.deepEqual(mock.commandCalls(GetCommand)[0]!.args[0].input.Key, keys.accountEvent('acc', EVENT.created_at, EVENT.id));
    const puts = mock.commandCalls(PutCommand).map((c) => c.args[0].input.Item!);
    assert.deepEqual(
      puts.map((item) => [item.sk, item.status, item.attempts, item.event_id, item.dispatched_by]),
      [A, B].map((id) => [`DELIVERY#${deliveryIdOf(id, EVENT)}`, 'pending', 0, EVENT.id, 'msg-1']),
    );
    assert.deepEqual(
      sent.map((m) => [m.endpoint_id, m.delivery_id, m.series, m.attempt, m.due_at]),
      [A, B].map((id) => [id, deliveryIdOf(id, EVENT), 1, 1, NOW.getTime()]),
    );
  });

  test('a repeated notice creates nothing and sends nothing for deliveries that made an attempt', async () => {
    const stored = (id: string, attempts: number, status: string) =>
      marshall({
        ...keys.webhookDelivery(id, deliveryIdOf(id, EVENT)),
        id: deliveryIdOf(id, EVENT),
        endpoint_id: id,
        account_id: 'acc',
        event_id: EVENT.id,
        event_type: EVENT.type,
        event_created_at: EVENT.created_at,
        status,
        attempts,
        series: 1,
        series_start: 0,
        next_attempt_at: null,
        created_at: 'c',
      });
    mock
      .on(PutCommand)
      .rejectsOnce(conditionFailed(stored(A, 1, 'delivered')))
      .rejectsOnce(conditionFailed(stored(B, 2, 'pending')));
    assert.equal(await dispatchEvent(deps, notice, 'msg-1'), 0);
    assert.deepEqual(sent, []);
  });

  const unsentBy = (dispatchedBy: string | undefined) =>
    marshall(
      {
        id: deliveryIdOf(A, EVENT),
        endpoint_id: A,
        account_id: 'acc',
        event_id: EVENT.id,
        event_type: EVENT.type,
        event_created_at: EVENT.created_at,
        status: 'pending',
        attempts: 0,
        series: 1,
        series_start: 0,
        next_attempt_at: '2026-03-01T00:00:07.000Z',
        created_at: '2026-03-01T00:00:07.000Z',
        dispatched_by: dispatchedBy,
      },
      { removeUndefinedValues: true },
    );

  test.each([
    ['the same message, received again', 'msg-1'],
    ['a delivery that does not say which message created it', undefined],
  ])('a delivery found with no attempt yet gets its first message again from %s (its dispatcher may have died before sending it)', async (_, dispatchedBy) => {
    mock.on(QueryCommand).resolves({ Items: [endpointItem(A)] });
    mock.on(PutCommand).rejects(conditionFailed(unsentBy(dispatchedBy)));
    assert.equal(await dispatchEvent(deps, notice, 'msg-1'), 1);
    assert.deepEqual(sent, [
      { delivery_id: deliveryIdOf(A, EVENT), endpoint_id: A, account_id: 'acc', series: 1, attempt: 1, due_at: Date.parse('2026-03-01T00:00:07.000Z') },
    ]);
  });

  test('another notice of the same event finding it with no attempt yet sends nothing: the message that created it sends it, or comes back', async () => {
    mock.on(QueryCommand).resolves({ Items: [endpointItem(A)] });
    mock.on(PutCommand).rejects(conditionFailed(unsentBy('msg-1')));
    assert.equal(await dispatchEvent(deps, notice, 'msg-2'), 0);
    assert.deepEqual(sent, []);
  });

  test('an event not in the record (another account’s id, past retention) or of an unknown type dispatches nothing', async () => {
    mock.on(GetCommand).resolves({});
    assert.equal(await dispatchEvent(deps, { ...notice, account_id: 'intruder' }, 'msg-1'), 0);
    assert.equal(await dispatchEvent(deps, { ...notice, event_type: 'run.exploded' }, 'msg-1'), 0);
    assert.equal(mock.commandCalls(QueryCommand).length, 0);
    assert.equal(mock.commandCalls(PutCommand).length, 0);
  });
});
