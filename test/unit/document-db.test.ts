import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JsonCall } from '../../lib/aws/json-client.js';
import { AwsServiceError } from '../../lib/aws/service-error.js';
import { documentDb } from '../../lib/data/document-db.js';

/** A JsonCall that records each operation and its wire input, answering from a script. */
function fakeCall(answers: Array<Record<string, unknown> | Error>) {
  const calls: Array<{ operation: string; input: any }> = [];
  const call = (async (operation: string, input: object) => {
    calls.push({ operation, input });
    const next = answers.shift() ?? {};
    if (next instanceof Error) throw next;
    return next;
  }) as JsonCall;
  return { calls, db: documentDb(call) };
}

describe('DocumentDb over the JSON protocol', () => {
  test('get marshals the key and unmarshals the item', async () => {
    const { calls, db } = fakeCall([{ Item: { pk: { S: 'A#1' }, n: { N: '3' }, tags: { L: [{ S: 'x' }] }, gone: { NULL: true } } }]);
    const { Item } = await db.get({ TableName: 't', Key: { pk: 'A#1', sk: 'A' }, ConsistentRead: true });
    assert.deepEqual(calls, [{ operation: 'GetItem', input: { TableName: 't', Key: { pk: { S: 'A#1' }, sk: { S: 'A' } }, ConsistentRead: true } }]);
    assert.deepEqual(Item, { pk: 'A#1', n: 3, tags: ['x'], gone: null });
  });

  test('put drops undefined attributes and marshals expression values; a failed condition carries the old item as plain values', async () => {
    const failure = new AwsServiceError('ConditionalCheckFailedException', 'The conditional request failed', 400, { Item: { status: { S: 'INPROGRESS' } } });
    const { calls, db } = fakeCall([failure]);
    const error = await db
      .put({ TableName: 't', Item: { pk: 'p', sk: 's', absent: undefined, m: { a: 1 } }, ConditionExpression: 'attribute_not_exists(pk) OR #e < :now', ExpressionAttributeValues: { ':now': 5 }, ExpressionAttributeNames: { '#e': 'ttl' } })
      .catch((e: unknown) => e);
    assert.equal(calls[0]!.operation, 'PutItem');
    assert.deepEqual(calls[0]!.input.Item, { pk: { S: 'p' }, sk: { S: 's' }, m: { M: { a: { N: '1' } } } });
    assert.deepEqual(calls[0]!.input.ExpressionAttributeValues, { ':now': { N: '5' } });
    assert.deepEqual(calls[0]!.input.ExpressionAttributeNames, { '#e': 'ttl' });
    assert.ok(error instanceof AwsServiceError);
    assert.deepEqual(error.Item, { status: 'INPROGRESS' });
  });

  test('update returns the attributes as plain values', async () => {
    const { calls, db } = fakeCall([{ Attributes: { event_seq: { N: '7' } } }]);
    const { Attributes } = await db.update({ TableName: 't', Key: { pk: 'p', sk: 's' }, UpdateExpression: 'ADD event_seq :one', ExpressionAttributeValues: { ':one': 1 }, ReturnValues: 'UPDATED_NEW' });
    assert.deepEqual(calls[0]!.input.Key, { pk: { S: 'p' }, sk: { S: 's' } });
    assert.deepEqual(Attributes, { event_seq: 7 });
  });

  test('query marshals the start key and values and unmarshals the items and the last key', async () => {
    const { calls, db } = fakeCall([{ Items: [{ pk: { S: 'p' }, sk: { S: '2' } }], LastEvaluatedKey: { pk: { S: 'p' }, sk: { S: '2' } }, Count: 1, ConsumedCapacity: { CapacityUnits: 0.5 } }]);
    const page = await db.query({ TableName: 't', KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': 'p' }, ExclusiveStartKey: { pk: 'p', sk: '1' }, Limit: 1 });
    assert.deepEqual(calls[0]!.input, { TableName: 't', KeyConditionExpression: 'pk = :p', Limit: 1, ExpressionAttributeValues: { ':p': { S: 'p' } }, ExclusiveStartKey: { pk: { S: 'p' }, sk: { S: '1' } } });
    assert.deepEqual(page.Items, [{ pk: 'p', sk: '2' }]);
    assert.deepEqual(page.LastEvaluatedKey, { pk: 'p', sk: '2' });
    assert.equal(page.Count, 1);
    assert.deepEqual(page.ConsumedCapacity, { CapacityUnits: 0.5 });
  });

  test('transactWrite marshals every kind of part', async () => {
    const { calls, db } = fakeCall([{}]);
    await db.transactWrite({
      TransactItems: [
        { Put: { TableName: 't', Item: { pk: 'a', sk: 'a' }, ConditionExpression: 'attribute_not_exists(pk)' } },
        { Update: { TableName: 't', Key: { pk: 'b', sk: 'b' }, UpdateExpression: 'SET n = :n', ExpressionAttributeValues: { ':n': 2 } } },
        { Delete: { TableName: 't', Key: { pk: 'c', sk: 'c' } } },
        { ConditionCheck: { TableName: 't', Key: { pk: 'd', sk: 'd' }, ConditionExpression: 'v = :v', ExpressionAttributeValues: { ':v': true } } },
      ],
    });
    assert.equal(calls[0]!.operation, 'TransactWriteItems');
    assert.deepEqual(calls[0]!.input.TransactItems, [
      { Put: { TableName: 't', Item: { pk: { S: 'a' }, sk: { S: 'a' } }, ConditionExpression: 'attribute_not_exists(pk)' } },
      { Update: { TableName: 't', Key: { pk: { S: 'b' }, sk: { S: 'b' } }, UpdateExpression: 'SET n = :n', ExpressionAttributeValues: { ':n': { N: '2' } } } },
      { Delete: { TableName: 't', Key: { pk: { S: 'c' }, sk: { S: 'c' } } } },
      { ConditionCheck: { TableName: 't', Key: { pk: { S: 'd' }, sk: { S: 'd' } }, ConditionExpression: 'v = :v', ExpressionAttributeValues: { ':v': { BOOL: true } } } },
    ]);
  });

  test('batchGet marshals keys and unmarshals responses and unprocessed keys', async () => {
    const { calls, db } = fakeCall([{ Responses: { t: [{ pk: { S: 'a' }, n: { N: '1' } }] }, UnprocessedKeys: { t: { Keys: [{ pk: { S: 'b' } }], ConsistentRead: true } } }]);
    const out = await db.batchGet({ RequestItems: { t: { Keys: [{ pk: 'a' }, { pk: 'b' }], ConsistentRead: true } } });
    assert.deepEqual(calls[0]!.input, { RequestItems: { t: { Keys: [{ pk: { S: 'a' } }, { pk: { S: 'b' } }], ConsistentRead: true } } });
    assert.deepEqual(out.Responses, { t: [{ pk: 'a', n: 1 }] });
    assert.deepEqual(out.UnprocessedKeys, { t: { Keys: [{ pk: 'b' }], ConsistentRead: true } });
  });

  test('batchWrite marshals puts and deletes and unmarshals what is left unprocessed', async () => {
    const { calls, db } = fakeCall([{ UnprocessedItems: { t: [{ PutRequest: { Item: { pk: { S: 'b' } } } }] } }]);
    const out = await db.batchWrite({ RequestItems: { t: [{ PutRequest: { Item: { pk: 'a' } } }, { DeleteRequest: { Key: { pk: 'c' } } }] } });
    assert.deepEqual(calls[0]!.input, { RequestItems: { t: [{ PutRequest: { Item: { pk: { S: 'a' } } } }, { DeleteRequest: { Key: { pk: { S: 'c' } } } }] } });
    assert.deepEqual(out.UnprocessedItems, { t: [{ PutRequest: { Item: { pk: 'b' } } }] });
  });

  test('class instances are refused rather than silently turned into maps', async () => {
    const { db } = fakeCall([{}]);
    await assert.rejects(db.put({ TableName: 't', Item: { pk: 'a', when: new Date() } }));
  });
});
