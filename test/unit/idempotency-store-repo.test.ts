import assert from 'node:assert/strict';
import {
  IdempotencyConfig,
  IdempotencyItemAlreadyExistsError,
  IdempotencyItemNotFoundError,
  IdempotencyRecordStatus,
} from '@aws-lambda-powertools/idempotency';
import { IdempotencyRecord } from '@aws-lambda-powertools/idempotency/persistence';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeEach, describe, test, vi } from 'vitest';
import { SingleTableIdempotencyStore } from '#platform/http/idempotency-store.js';
import { keys } from '#platform/table/keys.js';
import { conditionFailed, mockedDynamoDb, throttled } from '../helpers/dynamodb-mock.js';

const { mock, table } = mockedDynamoDb();

/** The store with its persistence methods reachable, as BasePersistenceLayer calls them. */
class Store extends SingleTableIdempotencyStore {
  constructor(validation = false) {
    super(table);
    if (validation) this.configure({ config: new IdempotencyConfig({ payloadValidationJmesPath: 'body' }) });
  }
  put = (record: IdempotencyRecord) => this._putRecord(record);
  get = (key: string) => this._getRecord(key);
  update = (record: IdempotencyRecord) => this._updateRecord(record);
  remove = (record: IdempotencyRecord) => this._deleteRecord(record);
}

const key = 'IDEMPOTENCY#abc';
const now = Date.parse('2026-03-01T00:00:00.250Z');
const record = (overrides: Partial<ConstructorParameters<typeof IdempotencyRecord>[0]> = {}) =>
  new IdempotencyRecord({
    idempotencyKey: key,
    status: IdempotencyRecordStatus.INPROGRESS,
    expiryTimestamp: now / 1000 + 86_400,
    inProgressExpiryTimestamp: now + 30_000,
    payloadHash: 'hash',
    ...overrides,
  });

beforeEach(() => {
  mock.reset();
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(now);
});
afterEach(() => vi.useRealTimers());

describe('_putRecord', () => {
  test('writes the in-progress record only if free, expired, or in progress past its own deadline', async () => {
    mock.on(PutCommand).resolves({});
    await new Store().put(record());
    const input = mock.commandCalls(PutCommand)[0]!.args[0].input;
    assert.deepEqual(input.Item, {
      ...keys.idempotency(key),
      entity: 'idempotency_record',
      ttl: now / 1000 + 86_400,
      status: 'INPROGRESS',
      in_progress_expiration: now + 30_000,
      validation: undefined,
    });
    assert.equal(
      input.ConditionExpression,
      'attribute_not_exists(pk) OR #expiry < :now OR (#status = :inprogress AND attribute_exists(in_progress_expiration) AND in_progress_expiration < :now_ms)',
    );
    assert.deepEqual(input.ExpressionAttributeNames, { '#expiry': 'ttl', '#status': 'status' });
    assert.deepEqual(input.ExpressionAttributeValues, { ':now': now / 1000, ':now_ms': now, ':inprogress': 'INPROGRESS' });
    assert.equal(input.ReturnValuesOnConditionCheckFailure, 'ALL_OLD');
  });

  test('with payload validation on, the payload hash is stored', async () => {
    mock.on(PutCommand).resolves({});
    await new Store(true).put(record());
    assert.equal(mock.commandCalls(PutCommand)[0]!.args[0].input.Item?.validation, 'hash');
  });

  test('a live record is IdempotencyItemAlreadyExistsError carrying the existing record, unmarshalled', async () => {
    const Item = {
      ...{ pk: { S: key }, sk: { S: 'IDEMPOTENCY' }, entity: { S: 'idempotency_record' } },
      status: { S: 'COMPLETED' },
      ttl: { N: String(now / 1000 + 60) },
      in_progress_expiration: { N: String(now - 1) },
      data: { M: { statusCode: { N: '201' }, body: { S: '{"id":1}' } } },
      validation: { S: 'old-hash' },
    };
    mock.on(PutCommand).rejects(conditionFailed(Item));
    const error = await new Store().put(record()).then(
      () => assert.fail('resolved'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof IdempotencyItemAlreadyExistsError);
    const existing = error.existingRecord!;
    assert.deepEqual(
      [
        existing.idempotencyKey,
        existing.getStatus(),
        existing.expiryTimestamp,
        existing.inProgressExpiryTimestamp,
        existing.getResponse(),
        existing.payloadHash,
      ],
      [key, 'COMPLETED', now / 1000 + 60, now - 1, { statusCode: 201, body: '{"id":1}' }, 'old-hash'],
    );
  });

  test('without the old item the error carries no record; any other failure propagates unchanged', async () => {
    mock.on(PutCommand).rejects(conditionFailed());
    await assert.rejects(new Store().put(record()), (e: unknown) => e instanceof IdempotencyItemAlreadyExistsError && e.existingRecord === undefined);
    const error = throttled();
    mock.on(PutCommand).rejects(error);
    await assert.rejects(new Store().put(record()), (e) => e === error);
  });
});

describe('_getRecord', () => {
  test('reads the record consistently by key', async () => {
    mock.on(GetCommand).resolves({ Item: { ...keys.idempotency(key), status: 'COMPLETED', ttl: now / 1000 + 60, data: { statusCode: 200 }, validation: 'h' } });
    const found = await new Store().get(key);
    assert.deepEqual([found.getStatus(), found.getResponse(), found.payloadHash], ['COMPLETED', { statusCode: 200 }, 'h']);
    assert.deepEqual(mock.commandCalls(GetCommand)[0]!.args[0].input, { TableName: 't', Key: keys.idempotency(key), ConsistentRead: true });
  });

  test('a record past its TTL but not yet deleted reads as EXPIRED', async () => {
    mock.on(GetCommand).resolves({ Item: { ...keys.idempotency(key), status: 'COMPLETED', ttl: now / 1000 - 1 } });
    assert.equal((await new Store().get(key)).getStatus(), IdempotencyRecordStatus.EXPIRED);
  });

  test('no item is IdempotencyItemNotFoundError', async () => {
    mock.on(GetCommand).resolves({});
    await assert.rejects(new Store().get(key), IdempotencyItemNotFoundError);
  });
});

describe('_updateRecord and _deleteRecord', () => {
  test('update sets expiry, status and the response (and the hash with validation on)', async () => {
    mock.on(UpdateCommand).resolves({});
    const done = record({ status: IdempotencyRecordStatus.COMPLETED, responseData: { statusCode: 201 } });
    await new Store(true).update(done);
    const input = mock.commandCalls(UpdateCommand)[0]!.args[0].input;
    assert.deepEqual(input.Key, keys.idempotency(key));
    assert.equal(input.UpdateExpression, 'SET #expiry = :expiry, #status = :status, #data = :data, #validation = :validation');
    assert.deepEqual(input.ExpressionAttributeNames, { '#expiry': 'ttl', '#status': 'status', '#data': 'data', '#validation': 'validation' });
    assert.deepEqual(input.ExpressionAttributeValues, {
      ':expiry': now / 1000 + 86_400,
      ':status': 'COMPLETED',
      ':data': { statusCode: 201 },
      ':validation': 'hash',
    });
  });

  test('update without a response or validation sets only expiry and status', async () => {
    mock.on(UpdateCommand).resolves({});
    await new Store().update(record({ status: IdempotencyRecordStatus.COMPLETED }));
    const input = mock.commandCalls(UpdateCommand)[0]!.args[0].input;
    assert.equal(input.UpdateExpression, 'SET #expiry = :expiry, #status = :status');
    assert.deepEqual(Object.keys(input.ExpressionAttributeValues!), [':expiry', ':status']);
  });

  test('delete removes the record by key', async () => {
    mock.on(DeleteCommand).resolves({});
    await new Store().remove(record());
    assert.deepEqual(mock.commandCalls(DeleteCommand)[0]!.args[0].input, { TableName: 't', Key: keys.idempotency(key) });
  });
});

describe('through the Powertools API', () => {
  test('saveInProgress writes under IDEMPOTENCY#<hash>, one partition per key', async () => {
    mock.on(PutCommand).resolves({});
    const store = new Store();
    store.configure({
      config: new IdempotencyConfig({ eventKeyJmesPath: 'scope', expiresAfterSeconds: 86_400, hashFunction: 'sha256' }),
      keyPrefix: keys.idempotencyPrefix,
    });
    await store.saveInProgress({ scope: 'acc POST /x k1' }, 5_000);
    await store.saveInProgress({ scope: 'acc POST /x k2' }, 5_000);
    const items = mock.commandCalls(PutCommand).map((c) => c.args[0].input.Item!);
    assert.ok(
      items.every((i) => /^IDEMPOTENCY#[A-Za-z0-9+/=_-]{16,}$/.test(i.pk as string) && i.sk === 'IDEMPOTENCY'),
      JSON.stringify(items),
    );
    assert.notEqual(items[0]!.pk, items[1]!.pk);
    assert.deepEqual([items[0]!.ttl, items[0]!.in_progress_expiration], [Math.floor(now / 1000) + 86_400, now + 5_000]);
  });
});
