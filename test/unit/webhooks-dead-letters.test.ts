import assert from 'node:assert/strict';
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeEach, describe, test, vi } from 'vitest';
import { logger } from '#platform/observability/logger.js';
import { keys } from '#platform/table/keys.js';
import { DEAD_LETTER_ERROR, failDeadLetteredDelivery, failDeadLetteredNotice } from '#webhooks/dead-letters.js';
import type { DeliveryMessage } from '#webhooks/delivery-messages.js';
import type { WebhookNotice } from '#webhooks/index.js';
import { deliveryIdOf, type WebhookDelivery } from '#webhooks/model.js';
import { deadLetterDeps } from '#webhooks/worker-deps.js';
import { conditionFailed, mockedDynamoDb, throttled } from '../helpers/dynamodb-mock.js';
import { deliveryFixture, EVENT_FIXTURE, endpointFixture } from '../helpers/webhook-fixtures.js';

const { mock, table } = mockedDynamoDb();
const deps = deadLetterDeps(table);

const ENDPOINT_ID = 'whe_0mwvyhd7oIwogRIxo-Bl0thkA';
const event = EVENT_FIXTURE;

const delivery = (overrides: Partial<WebhookDelivery> = {}): WebhookDelivery => deliveryFixture(ENDPOINT_ID, { dispatched_by: 'msg-dead', ...overrides });

const stored = (d: WebhookDelivery) => ({ Item: { ...keys.webhookDelivery(d.endpoint_id, d.id), entity: 'webhook_delivery', ...d } });
const failedBy = (d: WebhookDelivery) => ({ Attributes: { ...d, status: 'failed', last_error: DEAD_LETTER_ERROR, next_attempt_at: null } });

const message = (overrides: Partial<DeliveryMessage> = {}): DeliveryMessage => ({
  delivery_id: delivery().id,
  endpoint_id: ENDPOINT_ID,
  account_id: 'acc',
  series: 1,
  attempt: 1,
  due_at: Date.parse('2026-03-01T00:00:06.000Z'),
  ...overrides,
});

let errorLines: ReturnType<typeof vi.spyOn>;
beforeEach(() => {
  mock.reset();
  errorLines = vi.spyOn(logger(), 'error').mockImplementation(() => undefined);
  vi.spyOn(logger(), 'info').mockImplementation(() => undefined);
});
afterEach(() => vi.restoreAllMocks());

describe('a dead webhook-deliveries message', () => {
  test('ends its pending delivery failed with internal_error, on condition of the series, attempts and status read, and says so', async () => {
    // Prepare
    mock.on(GetCommand).resolves(stored(delivery()));
    mock.on(UpdateCommand).resolves(failedBy(delivery()));
    // Act
    const outcome = await failDeadLetteredDelivery(deps, message());
    // Assert
    assert.equal(outcome, 'failed');
    const input = mock.commandCalls(UpdateCommand)[0]!.args[0].input;
    assert.deepEqual(input.Key, keys.webhookDelivery(ENDPOINT_ID, delivery().id));
    assert.equal(input.ConditionExpression, '#series = :seen_series AND #attempts = :seen_attempts AND #status = :pending');
    const values = input.ExpressionAttributeValues!;
    assert.deepEqual(
      [values[':status'], values[':last_error'], values[':next_attempt_at'], values[':seen_series'], values[':seen_attempts'], values[':pending']],
      ['failed', DEAD_LETTER_ERROR, null, 1, 0, 'pending'],
    );
    assert.match(DEAD_LETTER_ERROR, /^internal_error: /);
    assert.equal(values[':last_status_code'], undefined, 'the last answer, if any, is kept');
    assert.equal(errorLines.mock.calls.length, 1);
    assert.deepEqual(errorLines.mock.calls[0]![1], {
      outcome: 'failed',
      account_id: 'acc',
      endpoint_id: ENDPOINT_ID,
      delivery_id: delivery().id,
      series: 1,
      attempt: 1,
    });
  });

  test('also when its attempt was recorded but the next message may never have gone out', async () => {
    // Prepare
    const recorded = delivery({ attempts: 2, last_status_code: 500, last_error: 'The endpoint answered 500.' });
    mock.on(GetCommand).resolves(stored(recorded));
    mock.on(UpdateCommand).resolves(failedBy(recorded));
    // Act
    const outcome = await failDeadLetteredDelivery(deps, message({ attempt: 2 }));
    // Assert
    assert.equal(outcome, 'failed');
    assert.equal(mock.commandCalls(UpdateCommand)[0]!.args[0].input.ExpressionAttributeValues?.[':seen_attempts'], 2);
  });

  test('changes nothing for a delivery that moved on or is not the message’s: delivered, failed, retried, a later attempt made, another account’s, gone', async () => {
    const movedOn: Array<[string, WebhookDelivery | undefined]> = [
      ['delivered', delivery({ status: 'delivered', attempts: 1, last_status_code: 200, next_attempt_at: null, delivered_at: 'then' })],
      ['failed', delivery({ status: 'failed', attempts: 1, last_error: 'The endpoint answered 410 Gone.', next_attempt_at: null })],
      ['retried', delivery({ series: 2, series_start: 1, attempts: 1 })],
      ['a later attempt made', delivery({ attempts: 2 })],
      ['another account’s', delivery({ account_id: 'other' })],
      ['gone', undefined],
    ];
    for (const [what, found] of movedOn) {
      // Prepare
      mock.reset();
      mock.on(GetCommand).resolves(found ? stored(found) : {});
      // Act
      const outcome = await failDeadLetteredDelivery(deps, message());
      // Assert
      assert.equal(outcome, 'stale', what);
      assert.equal(mock.commandCalls(UpdateCommand).length, 0, what);
    }
    assert.equal(errorLines.mock.calls.length, 0);
  });

  test('handled twice: the second copy finds it failed and writes nothing', async () => {
    // Prepare
    mock
      .on(GetCommand)
      .resolvesOnce(stored(delivery()))
      .resolves(stored(failedBy(delivery()).Attributes as WebhookDelivery));
    mock.on(UpdateCommand).resolves(failedBy(delivery()));
    // Act
    const outcomes = [await failDeadLetteredDelivery(deps, message()), await failDeadLetteredDelivery(deps, message())];
    // Assert
    assert.deepEqual(outcomes, ['failed', 'stale']);
    assert.equal(mock.commandCalls(UpdateCommand).length, 1);
  });

  test('delivered between the read and the write: the condition fails and is an answer, not an error', async () => {
    // Prepare
    mock.on(GetCommand).resolves(stored(delivery()));
    mock.on(UpdateCommand).rejects(conditionFailed());
    // Act
    const outcome = await failDeadLetteredDelivery(deps, message());
    // Assert
    assert.equal(outcome, 'raced');
    assert.equal(errorLines.mock.calls.length, 0);
  });

  test('a table that does not answer is thrown, so the dead message stays for another try', async () => {
    mock.on(GetCommand).rejects(throttled());
    await assert.rejects(failDeadLetteredDelivery(deps, message()), { name: 'ProvisionedThroughputExceededException' });
  });
});

describe('a dead webhook-events notice', () => {
  const id = (last: string) => `whe_0mwvyhd7oIwogRIxo-Bl0thk${last}`;
  const notice: WebhookNotice = { account_id: 'acc', event_id: event.id, event_type: 'run.completed', created_at: event.created_at };
  const of = (endpointId: string, overrides: Partial<WebhookDelivery> = {}) =>
    delivery({ id: deliveryIdOf(endpointId, event), endpoint_id: endpointId, ...overrides });
  const endpointItem = (endpointId: string, overrides: Parameters<typeof endpointFixture>[0] = {}) => ({
    ...keys.webhookEndpoint('acc', endpointId),
    entity: 'webhook_endpoint',
    ...endpointFixture({ id: endpointId, ...overrides }),
  });

  function account(deliveries: Record<string, WebhookDelivery>) {
    mock.on(QueryCommand).resolves({
      Items: [
        endpointItem(id('A')),
        endpointItem(id('B')),
        endpointItem(id('C')),
        endpointItem(id('D')),
        endpointItem(id('E'), { disabled: true, disabled_reason: 'user' }),
        endpointItem(id('F'), { events: ['run.failed'] }),
        endpointItem(id('G'), { events: ['run.failed'] }),
      ],
    });
    mock.on(GetCommand).resolves({});
    for (const d of Object.values(deliveries)) mock.on(GetCommand, { Key: keys.webhookDelivery(d.endpoint_id, d.id) }).resolves(stored(d));
    mock.on(UpdateCommand).callsFake((input) => ({ Attributes: { ...deliveries[input.Key.pk], status: 'failed' } }));
  }

  test('fails the deliveries it created and never sent, and only those; counts the subscribed endpoints it never reached', async () => {
    // Prepare: A created and unsent by this notice; B created by another notice, live; C attempted; D and E never reached, E disabled;
    // F no longer subscribed but its delivery unsent by this notice; G unsubscribed, never reached.
    const deliveries = {
      A: of(id('A')),
      B: of(id('B'), { dispatched_by: 'msg-live' }),
      C: of(id('C'), { attempts: 1, last_status_code: 500 }),
      F: of(id('F')),
    };
    account(Object.fromEntries(Object.values(deliveries).map((d) => [keys.webhookDelivery(d.endpoint_id, d.id).pk, d])));
    // Act
    const counts = await failDeadLetteredNotice(deps, notice, 'msg-dead');
    // Assert
    assert.deepEqual(counts, { failed: 2, raced: 0, undispatched: 1 });
    const query = mock.commandCalls(QueryCommand)[0]!.args[0].input;
    assert.equal(query.ExpressionAttributeValues?.[':pk'], keys.webhookEndpointPrefix('acc').pk);
    const updated = mock.commandCalls(UpdateCommand).map((c) => c.args[0].input);
    assert.deepEqual(
      updated.map((u) => u.Key),
      [deliveries.A, deliveries.F].map((d) => keys.webhookDelivery(d.endpoint_id, d.id)),
    );
    for (const u of updated)
      assert.deepEqual([u.ExpressionAttributeValues?.[':status'], u.ExpressionAttributeValues?.[':last_error']], ['failed', DEAD_LETTER_ERROR]);
    assert.deepEqual(errorLines.mock.calls[0]![1], {
      account_id: 'acc',
      event_id: event.id,
      event_type: 'run.completed',
      failed: 2,
      raced: 0,
      undispatched: 1,
    });
  });

  test('a second copy finds them failed and writes nothing; a delivery changed between the read and the write is counted, not thrown', async () => {
    // Prepare
    const a = of(id('A'), { status: 'failed', last_error: DEAD_LETTER_ERROR, next_attempt_at: null });
    account({ [keys.webhookDelivery(a.endpoint_id, a.id).pk]: a });
    // Act
    const again = await failDeadLetteredNotice(deps, notice, 'msg-dead');
    // Assert
    assert.equal(again.failed, 0);
    assert.equal(mock.commandCalls(UpdateCommand).length, 0);

    // Prepare
    mock.reset();
    const b = of(id('B'));
    account({ [keys.webhookDelivery(b.endpoint_id, b.id).pk]: b });
    mock.on(UpdateCommand).rejects(conditionFailed());
    // Act
    const raced = await failDeadLetteredNotice(deps, notice, 'msg-dead');
    // Assert
    assert.deepEqual([raced.failed, raced.raced], [0, 1]);
  });

  test('a notice of an unknown event type reads nothing', async () => {
    assert.deepEqual(await failDeadLetteredNotice(deps, { ...notice, event_type: 'run.exploded' }, 'msg-dead'), { failed: 0, raced: 0, undispatched: 0 });
    assert.equal(mock.calls().length, 0);
  });
});
