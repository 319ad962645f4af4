import assert from 'node:assert/strict';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, test, vi } from 'vitest';
import { ROUTES } from '#app/routes.js';
import { bearer, signedUpUser, startTestStack } from '../helpers/stack.js';
import { holdAt } from './fixtures/hold.js';
import { TEST_ROUTES } from './fixtures/routes.js';

let stack: Awaited<ReturnType<typeof startTestStack>>;
let user: Awaited<ReturnType<typeof signedUpUser>>;

beforeAll(async () => {
  stack = await startTestStack({ routes: [...ROUTES, ...TEST_ROUTES] });
  user = await signedUpUser(stack);
});
afterAll(async () => {
  await stack.stop();
});

const createThing = (body: unknown, headers: Record<string, string> = {}, token = user.token) =>
  fetch(`${stack.url}/v2/test/things`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...bearer(token), ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  trace_id: string;
  errors?: Array<{ name: string; location: string; reason: string; code: string }>;
}

describe('problem documents and request ids', () => {
  test('X-Request-Id is echoed as trace_id and as a header', async () => {
    const response = await fetch(`${stack.url}/v2/test/whoami`, { headers: { 'X-Request-Id': 'req-123' } });
    assert.equal(response.status, 401);
    assert.equal(response.headers.get('x-request-id'), 'req-123');
    assert.equal(response.headers.get('content-type'), 'application/problem+json');
    const problem = (await response.json()) as Problem;
    assert.deepEqual(
      { ...problem, detail: undefined },
      { type: `${stack.url}/problems/unauthorized`, title: 'Unauthorized', status: 401, code: 'unauthorized', trace_id: 'req-123', detail: undefined },
    );
  });

  test('without X-Request-Id a fresh id is made and used in both places', async () => {
    const response = await fetch(`${stack.url}/v2/test/whoami`);
    const id = response.headers.get('x-request-id');
    assert.match(id ?? '', /^[0-9a-f-]{36}$/);
    assert.equal(((await response.json()) as Problem).trace_id, id);
  });

  test('an unknown error is an opaque 500 internal_error carrying the trace id', async () => {
    const response = await fetch(`${stack.url}/v2/test/crash`, { headers: { 'X-Request-Id': 'crash-1' } });
    assert.equal(response.status, 500);
    const text = await response.text();
    assert.ok(!text.includes('secretTableName') && !text.includes('TypeError'), text);
    const problem = JSON.parse(text) as Problem;
    assert.equal(problem.code, 'internal_error');
    assert.equal(problem.trace_id, 'crash-1');
    assert.equal(problem.title, 'Internal Server Error');
  });

  test('body faults: invalid_json, invalid_body, unknown_field, validation_failed with one entry per field', async () => {
    const key = { 'Idempotency-Key': `k-${Date.now()}-body` };
    const cases: Array<[string, number, string]> = [
      ['{"name":', 400, 'invalid_json'],
      ['[1,2]', 400, 'invalid_body'],
      ['"text"', 400, 'invalid_body'],
      ['null', 400, 'invalid_body'],
      ['{"name":"a","colour":"red"}', 400, 'unknown_field'],
    ];
    for (const [body, status, code] of cases) {
      const response = await createThing(body, key);
      assert.equal(response.status, status, body);
      assert.equal(((await response.json()) as Problem).code, code, body);
    }
    const unknownNested = (await (await createThing({ name: 'a', nested: { flag: true, extra: 1 } }, key)).json()) as Problem;
    assert.deepEqual(unknownNested.errors, [{ name: '/nested/extra', location: 'body', reason: 'is not a field of this request', code: 'unknown_field' }]);
    const invalid = await createThing({ count: -1, nested: { flag: 'yes' } }, key);
    assert.equal(invalid.status, 422);
    const problem = (await invalid.json()) as Problem;
    assert.equal(problem.code, 'validation_failed');
    assert.deepEqual(
      problem.errors?.map((e) => [e.name, e.location, e.code]),
      [
        ['/name', 'body', 'required'],
        ['/count', 'body', 'too_small'],
        ['/nested/flag', 'body', 'invalid_type'],
      ],
    );
  });

  test('query faults are 400 invalid_parameter naming the parameter; cursors are checked', async () => {
    const list = (query: string) => fetch(`${stack.url}/v2/test/things${query}`, { headers: bearer(user.token) });
    for (const query of ['?limit=0', '?limit=101', '?limit=2.5', '?color=green']) {
      const response = await list(query);
      assert.equal(response.status, 400, query);
      const problem = (await response.json()) as Problem;
      assert.equal(problem.code, 'invalid_parameter');
      assert.equal(problem.errors?.[0]?.location, 'query');
    }
    const first = (await (await list('?limit=5&color=red')).json()) as { page: { next_cursor: string } };
    const cursor = encodeURIComponent(first.page.next_cursor);
    const next = (await (await list(`?limit=5&color=red&cursor=${cursor}`)).json()) as { data: Array<{ id: number }> };
    assert.deepEqual(
      next.data.map((d) => d.id),
      [10, 12, 14, 16, 18],
    );
    const mismatch = await list(`?limit=5&color=blue&cursor=${cursor}`);
    assert.equal(mismatch.status, 400);
    assert.equal(((await mismatch.json()) as Problem).code, 'cursor_filter_mismatch');
    const tampered = await list(`?cursor=${cursor.slice(0, -2)}xx`);
    assert.equal(((await tampered.json()) as Problem).code, 'cursor_invalid');
  });

  test('a malformed path id answers the same 404 as an unknown one', async () => {
    const bodies: unknown[] = [];
    for (const id of ['not-a-uuid', '11111111-1111-1111-1111-111111111111']) {
      const response = await fetch(`${stack.url}/v2/test/things/${id}`, { headers: { ...bearer(user.token), 'X-Request-Id': 'same' } });
      assert.equal(response.status, 404);
      bodies.push(await response.json());
    }
    assert.deepEqual(bodies[0], bodies[1]);
  });

  test('a path served with another method answers 405 with Allow', async () => {
    const response = await fetch(`${stack.url}/v1/api-tokens/revoke`, { headers: bearer(user.token) });
    assert.equal(response.status, 405);
    assert.equal(response.headers.get('allow'), 'POST');
  });
});

describe('idempotency of v2 writes', () => {
  test('a write without Idempotency-Key is 400 idempotency_key_required', async () => {
    const response = await createThing({ name: 'a' });
    assert.equal(response.status, 400);
    assert.equal(((await response.json()) as Problem).code, 'idempotency_key_required');
  });

  test('a key that is not 1-255 visible ASCII characters is 400 idempotency_key_invalid', async () => {
    for (const key of ['x'.repeat(256), 'has space', 'tab\tkey']) {
      const response = await createThing({ name: 'a' }, { 'Idempotency-Key': key });
      assert.equal(response.status, 400, key);
      assert.equal(((await response.json()) as Problem).code, 'idempotency_key_invalid');
    }
    assert.equal((await createThing({ name: 'a' }, { 'Idempotency-Key': 'x'.repeat(255) })).status, 201);
  });

  test('a replay returns the original status and body with Idempotency-Replayed: true', async () => {
    const key = { 'Idempotency-Key': `replay-${Date.now()}` };
    const first = await createThing({ name: 'once', count: 1 }, key);
    assert.equal(first.status, 201);
    assert.equal(first.headers.get('idempotency-replayed'), null);
    const original = await first.json();
    // Key order does not make a different body.
    const again = await createThing('{"count":1,"name":"once"}', { ...key, 'X-Request-Id': 'replay-req' });
    assert.equal(again.status, 201);
    assert.equal(again.headers.get('idempotency-replayed'), 'true');
    assert.equal(again.headers.get('x-request-id'), 'replay-req');
    assert.deepEqual(await again.json(), original);
  });

  test('the same key with another body is 409 idempotency_key_conflict', async () => {
    const key = { 'Idempotency-Key': `conflict-${Date.now()}` };
    assert.equal((await createThing({ name: 'first' }, key)).status, 201);
    const response = await createThing({ name: 'second' }, key);
    assert.equal(response.status, 409);
    assert.equal(((await response.json()) as Problem).code, 'idempotency_key_conflict');
  });

  test('the same key while the first request runs is 409 idempotency_key_in_flight', async () => {
    const key = { 'Idempotency-Key': `inflight-${Date.now()}` };
    const held = holdAt('create-thing:slow');
    try {
      const slow = createThing({ name: 'slow' }, key);
      // Its handler runs only once the in-progress record is stored: from then on the first request is in flight.
      await vi.waitFor(() => assert.ok(held.reached(), 'the first request reached its handler'), { timeout: 10_000, interval: 20 });
      const response = await createThing({ name: 'slow' }, key);
      assert.equal(response.status, 409);
      assert.equal(((await response.json()) as Problem).code, 'idempotency_key_in_flight');
      held.release();
      assert.equal((await slow).status, 201);
      assert.equal((await createThing({ name: 'slow' }, key)).headers.get('idempotency-replayed'), 'true');
    } finally {
      held.release();
    }
  });

  test('keys are scoped to the account: another account with the same key gets its own result', async () => {
    const other = await signedUpUser(stack);
    const key = { 'Idempotency-Key': `shared-${Date.now()}` };
    const mine = (await (await createThing({ name: 'x' }, key)).json()) as { id: string };
    const theirs = await createThing({ name: 'x' }, key, other.token);
    assert.equal(theirs.status, 201);
    assert.equal(theirs.headers.get('idempotency-replayed'), null);
    assert.notEqual(((await theirs.json()) as { id: string }).id, mine.id);
  });

  test('a failed execution keeps no record: the retry runs again', async () => {
    const key = { 'Idempotency-Key': `boom-${Date.now()}` };
    const failed = await createThing({ name: 'boom' }, key);
    assert.equal(failed.status, 500);
    const retry = await createThing({ name: 'boom' }, key);
    assert.equal(retry.status, 500);
    assert.equal(retry.headers.get('idempotency-replayed'), null);
  });

  test('records expire after 24 hours', async () => {
    const key = `ttl-${Date.now()}`;
    await createThing({ name: 'ttl' }, { 'Idempotency-Key': key });
    // The service never scans, so its client has no Scan; the SDK's does.
    const sdk = DynamoDBDocumentClient.from(
      new DynamoDBClient({ endpoint: stack.dynamodbEndpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }),
    );
    // Every page: the table is shared by the run's test files, so the records may lie past the first megabyte.
    const items: Array<Record<string, unknown>> = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await sdk.send(
        new ScanCommand({
          TableName: stack.tableName,
          FilterExpression: 'sk = :sk',
          ExpressionAttributeValues: { ':sk': 'IDEMPOTENCY' },
          ExclusiveStartKey: start,
        }),
      );
      items.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start);
    sdk.destroy();
    const ttls = items.map((item) => Number(item.ttl) - Date.now() / 1000);
    assert.ok(ttls.length > 0);
    for (const ttl of ttls) assert.ok(ttl > 0 && ttl <= 86_400 + 5, `ttl in ${ttl} s`);
    assert.ok(ttls.some((ttl) => ttl > 86_400 - 60));
  });
});
