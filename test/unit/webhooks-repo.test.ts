import assert from 'node:assert/strict';
import { GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { beforeEach, describe, test } from 'vitest';
import { keys } from '#platform/table/keys.js';
import { deliveriesRepo } from '#webhooks/deliveries-repository.js';
import { endpointsRepo } from '#webhooks/endpoints-repository.js';
import { deliveryIdOf, MAX_ENDPOINTS_PER_ACCOUNT, type WebhookDelivery, type WebhookEndpoint } from '#webhooks/model.js';
import { cancelled, conditionFailed, mockedDynamoDb, throttled } from '../helpers/dynamodb-mock.js';
import { deliveryFixture, EVENT_FIXTURE, endpointFixture } from '../helpers/webhook-fixtures.js';

const { mock, table } = mockedDynamoDb();
const endpoints = endpointsRepo(table);
const deliveries = deliveriesRepo(table);

const ENDPOINT_ID = 'whe_0mwvyhd7oIwogRIxo-Bl0thkD';
const endpoint = (overrides: Partial<WebhookEndpoint> = {}): WebhookEndpoint => endpointFixture({ id: ENDPOINT_ID, ...overrides });
const event = EVENT_FIXTURE;
const delivery = (overrides: Partial<WebhookDelivery> = {}): WebhookDelivery => deliveryFixture(ENDPOINT_ID, { dispatched_by: 'msg-1', ...overrides });

beforeEach(() => mock.reset());

describe('endpoints', () => {
  test('create puts the endpoint under its account, never over another, stores no secret, and raises the account’s count below the limit', async () => {
    mock.on(TransactWriteCommand).resolves({});
    await endpoints.create(endpoint());
    const [counter, put] = mock.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    const input = put!.Put!;
    assert.deepEqual(
      [input.Item?.pk, input.Item?.sk, input.ConditionExpression],
      [...Object.values(keys.webhookEndpoint('acc', ENDPOINT_ID)), 'attribute_not_exists(pk)'],
    );
    assert.equal(input.Item?.secret, undefined);
    assert.equal(input.Item?.secret_version, 1);
    assert.deepEqual(counter?.Update?.Key, keys.webhookEndpointCount('acc'));
    assert.equal(counter?.Update?.ConditionExpression, 'attribute_not_exists(#count) OR #count < :limit');
    assert.equal(counter?.Update?.ExpressionAttributeValues?.[':limit'], MAX_ENDPOINTS_PER_ACCOUNT);
    mock.on(TransactWriteCommand).rejects(cancelled('ConditionalCheckFailed', 'None'));
    await assert.rejects(endpoints.create(endpoint()), {
      code: 'webhook_endpoint_limit_reached',
      kind: 'conflict',
      options: { extensions: { limit: MAX_ENDPOINTS_PER_ACCOUNT } },
    });
    mock.on(TransactWriteCommand).rejects(cancelled('None', 'ConditionalCheckFailed'));
    await assert.rejects(endpoints.create(endpoint()), { code: 'webhook_endpoint_exists' });
  });

  test('delete removes an existing endpoint and lowers the count in one transaction; gone is a NotFoundError', async () => {
    mock.on(TransactWriteCommand).resolves({});
    await endpoints.delete('acc', ENDPOINT_ID);
    const [remove, counter] = mock.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    assert.deepEqual([remove?.Delete?.Key, remove?.Delete?.ConditionExpression], [keys.webhookEndpoint('acc', ENDPOINT_ID), 'attribute_exists(pk)']);
    assert.deepEqual([counter?.Update?.Key, counter?.Update?.UpdateExpression], [keys.webhookEndpointCount('acc'), 'ADD #count :minus_one']);
    mock.on(TransactWriteCommand).rejects(cancelled('ConditionalCheckFailed', 'None'));
    await assert.rejects(endpoints.delete('acc', ENDPOINT_ID), { code: 'not_found' });
  });

  test('get reads consistently under the account; a malformed id reads nothing', async () => {
    mock.on(GetCommand).resolves({ Item: { ...keys.webhookEndpoint('acc', ENDPOINT_ID), entity: 'webhook_endpoint', ...endpoint() } });
    assert.deepEqual(await endpoints.get('acc', ENDPOINT_ID), endpoint());
    assert.deepEqual(mock.commandCalls(GetCommand)[0]!.args[0].input, { TableName: 't', Key: keys.webhookEndpoint('acc', ENDPOINT_ID), ConsistentRead: true });
    assert.equal(await endpoints.get('acc', 'nope'), undefined);
    assert.equal(mock.commandCalls(GetCommand).length, 1);
  });

  test('subscribed queries only the event’s account, enabled endpoints of the type', async () => {
    mock.on(QueryCommand).resolves({ Items: [endpoint()] });
    assert.deepEqual(await endpoints.subscribed('acc', 'run.completed'), [endpoint()]);
    const input = mock.commandCalls(QueryCommand)[0]!.args[0].input;
    assert.equal(input.ExpressionAttributeValues?.[':pk'], keys.webhookEndpointPrefix('acc').pk);
    assert.equal(input.ExpressionAttributeValues?.[':type'], 'run.completed');
    assert.equal(input.FilterExpression, '#disabled = :false AND contains(#events, :type)');
    assert.equal(input.ConsistentRead, true);
  });

  test('rotate makes the version the previous one, valid until the overlap’s end, and raises it in one conditional Update; gone is a NotFoundError', async () => {
    mock
      .on(UpdateCommand)
      .resolves({ Attributes: endpoint({ secret_version: 2, previous_secret_version: 1, previous_valid_until: 'later', secret_rotated_at: 'now' }) });
    const rotated = await endpoints.rotate('acc', ENDPOINT_ID, { now: 'now', previousValidUntil: 'later' });
    assert.deepEqual([rotated.secret_version, rotated.previous_secret_version, rotated.previous_valid_until], [2, 1, 'later']);
    const input = mock.commandCalls(UpdateCommand)[0]!.args[0].input;
    assert.deepEqual(input.Key, keys.webhookEndpoint('acc', ENDPOINT_ID));
    assert.equal(
      input.UpdateExpression,
      'SET previous_secret_version = secret_version, previous_valid_until = :until, secret_version = secret_version + :one, secret_rotated_at = :now, updated_at = :now',
    );
    assert.equal(input.ConditionExpression, 'attribute_exists(pk)');
    mock.on(UpdateCommand).rejects(conditionFailed());
    await assert.rejects(endpoints.rotate('acc', ENDPOINT_ID, { now: 'now', previousValidUntil: 'later' }), { code: 'not_found' });
    await assert.rejects(endpoints.rotate('acc', 'nope', { now: 'now', previousValidUntil: 'later' }), { code: 'not_found' });
  });

  test('update sets the given fields on an existing endpoint; enabling clears the reason; gone is a NotFoundError', async () => {
    mock.on(UpdateCommand).resolves({ Attributes: endpoint({ disabled: false }) });
    await endpoints.update('acc', ENDPOINT_ID, { disabled: false, url: 'https://b.example/' }, 'now');
    const input = mock.commandCalls(UpdateCommand)[0]!.args[0].input;
    assert.equal(input.ConditionExpression, 'attribute_exists(pk)');
    assert.deepEqual(input.ExpressionAttributeValues, { ':updated_at': 'now', ':url': 'https://b.example/', ':disabled': false, ':disabled_reason': null });
    mock.on(UpdateCommand).rejects(conditionFailed());
    await assert.rejects(endpoints.update('acc', ENDPOINT_ID, { disabled: true }, 'now'), { code: 'not_found' });
    await assert.rejects(endpoints.delete('acc', 'nope'), { code: 'not_found' });
  });
});

describe('deliveries', () => {
  test('createOnce puts the delivery at its derived key with a TTL; a taken key answers the stored delivery, not a copy', async () => {
    mock.on(PutCommand).resolves({});
    assert.deepEqual(await deliveries.createOnce(delivery()), { created: true, delivery: delivery() });
    const input = mock.commandCalls(PutCommand)[0]!.args[0].input;
    assert.deepEqual([input.Item?.pk, input.Item?.sk], Object.values(keys.webhookDelivery(ENDPOINT_ID, delivery().id)));
    assert.equal(input.ConditionExpression, 'attribute_not_exists(pk)');
    assert.equal(input.Item?.ttl, Date.parse('2026-03-01T00:00:06.000Z') / 1000 + 30 * 24 * 3600);

    const stored = delivery({ status: 'delivered', attempts: 1, last_status_code: 200 });
    mock.on(PutCommand).rejects(conditionFailed(marshall(stored)));
    assert.deepEqual(await deliveries.createOnce(delivery()), { created: false, delivery: stored });
    mock.on(PutCommand).rejects(throttled());
    await assert.rejects(deliveries.createOnce(delivery()), { name: 'ProvisionedThroughputExceededException' });
  });

  test('the id is the same for the same (endpoint, event), sorts by the event’s time, and differs per endpoint', () => {
    assert.equal(deliveryIdOf(ENDPOINT_ID, event), delivery().id);
    assert.notEqual(deliveryIdOf('whe_0mwvyhd7oIwogRIxo-Bl0thkE', event), delivery().id);
    const later = deliveryIdOf(ENDPOINT_ID, { id: event.id, created_at: '2026-03-02T00:00:00.000Z' });
    assert.ok(later > delivery().id);
  });

  test('recordAttempt is conditional on the series and the attempts before it; a lost race is undefined', async () => {
    mock.on(UpdateCommand).resolves({ Attributes: delivery({ attempts: 1, status: 'delivered' }) });
    const record = { status: 'delivered' as const, last_status_code: 200, last_error: null, next_attempt_at: null, delivered_at: 'now' };
    assert.equal((await deliveries.recordAttempt(delivery({ series: 2, attempts: 3 }), 4, record))?.status, 'delivered');
    const input = mock.commandCalls(UpdateCommand)[0]!.args[0].input;
    assert.equal(input.ConditionExpression, '#series = :seen_series AND #attempts = :seen_attempts AND #status = :pending');
    assert.equal(input.ExpressionAttributeValues?.[':seen_series'], 2);
    assert.equal(input.ExpressionAttributeValues?.[':seen_attempts'], 3);
    assert.equal(input.ExpressionAttributeValues?.[':attempts'], 4);
    mock.on(UpdateCommand).rejects(conditionFailed());
    assert.equal(await deliveries.recordAttempt(delivery(), 1, record), undefined);
  });

  test('retry starts the next series from the attempts made', async () => {
    mock.on(UpdateCommand).resolves({ Attributes: delivery({ series: 2, series_start: 8, attempts: 8 }) });
    await deliveries.retry(delivery({ status: 'failed', attempts: 8 }), 'now');
    const values = mock.commandCalls(UpdateCommand)[0]!.args[0].input.ExpressionAttributeValues!;
    assert.deepEqual(
      [values[':series'], values[':series_start'], values[':status'], values[':next_attempt_at'], values[':seen_series']],
      [2, 8, 'pending', 'now', 1],
    );
  });
});
