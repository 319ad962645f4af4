import assert from 'node:assert/strict';
import { BatchWriteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, test } from 'vitest';
import { createHarness } from '#harnesses/create-harness.js';
import { HarnessFilesInvalidError } from '#harnesses/errors.js';
import { harnessesRepo } from '#harnesses/harnesses-repository.js';
import { HARNESS_ID, type Harness } from '#harnesses/model.js';
import { ConflictError } from '#platform/errors.js';
import { newHarnessId } from '#platform/ids.js';
import { keys } from '#platform/table/keys.js';
import { conditionFailed, mockedDynamoDb, throttled } from '../helpers/dynamodb-mock.js';

const { mock, table } = mockedDynamoDb();
const repo = harnessesRepo(table);
const accountId = 'acc-1';

const harness = (overrides: Partial<Harness> = {}): Harness => ({
  id: newHarnessId(),
  account_id: accountId,
  name: 'helper',
  model: 'local/echo',
  config: { model: 'local/echo', instructions: 'prompt.md', tools: [], mcp_servers: [], max_turns: 10 },
  files: [
    { path: 'harness.json', bytes: 10 },
    { path: 'prompt.md', bytes: 2 },
  ],
  total_bytes: 12,
  instructions_empty: false,
  created_at: '2026-01-01T00:00:00.000Z',
  ...overrides,
});
const head = (h: Harness) => ({ ...keys.harness(h.id), ...keys.harnessIndex(h.account_id, h.created_at, h.id), entity: 'harness', ...h });
const fileItem = (h: Harness, path: string, content: string) => ({ ...keys.harnessFile(h.id, path), entity: 'harness_file', harness_id: h.id, path, content });

beforeEach(() => mock.reset());

test('ids are h_ and an opaque part', () => {
  for (let i = 0; i < 20; i++) assert.match(newHarnessId(), HARNESS_ID);
});

describe('create', () => {
  test('writes every file (25 to a batch), then the head with its index entry, never over an existing one', async () => {
    mock.on(BatchWriteCommand).resolves({});
    mock.on(PutCommand).resolves({});
    const h = harness();
    const files = Array.from({ length: 30 }, (_, i) => ({ path: `f${i}.md`, content: `content ${i}` }));
    assert.deepEqual(await repo.create(h, files), h);
    const batches = mock.commandCalls(BatchWriteCommand).map((c) => c.args[0].input.RequestItems!.t!.map((r) => r.PutRequest!.Item));
    assert.deepEqual(
      batches.map((b) => b.length),
      [25, 5],
    );
    assert.deepEqual(
      batches.flat(),
      files.map((f) => fileItem(h, f.path, f.content)),
    );
    assert.deepEqual(mock.commandCalls(PutCommand)[0]!.args[0].input, { TableName: 't', Item: head(h), ConditionExpression: 'attribute_not_exists(pk)' });
    // The head is written after the last file.
    const order = mock.calls().map((c) => c.args[0].constructor.name);
    assert.deepEqual(order, ['BatchWriteCommand', 'BatchWriteCommand', 'PutCommand']);
  });

  test('unprocessed files are written again before the head', async () => {
    const h = harness();
    const first = fileItem(h, 'a', 'x');
    mock
      .on(BatchWriteCommand)
      .resolvesOnce({ UnprocessedItems: { t: [{ PutRequest: { Item: first } }] } })
      .resolves({});
    mock.on(PutCommand).resolves({});
    await repo.create(h, [
      { path: 'a', content: 'x' },
      { path: 'b', content: 'y' },
    ]);
    assert.deepEqual(mock.commandCalls(BatchWriteCommand)[1]!.args[0].input.RequestItems!.t, [{ PutRequest: { Item: first } }]);
    assert.equal(mock.commandCalls(PutCommand).length, 1);
  });

  test('a failed file write leaves no head; an existing head is a ConflictError', async () => {
    const error = throttled();
    mock.on(BatchWriteCommand).rejects(error);
    await assert.rejects(repo.create(harness(), [{ path: 'a', content: 'x' }]), (e) => e === error);
    assert.equal(mock.commandCalls(PutCommand).length, 0);
    mock.reset();
    mock.on(BatchWriteCommand).resolves({});
    mock.on(PutCommand).rejects(conditionFailed());
    await assert.rejects(repo.create(harness(), [{ path: 'a', content: 'x' }]), ConflictError);
  });
});

describe('createHarness', () => {
  test('stores the validated set with its parsed config, sizes and whether the instructions are empty', async () => {
    mock.on(BatchWriteCommand).resolves({});
    mock.on(PutCommand).resolves({});
    const files = [
      { path: 'harness.json', content: JSON.stringify({ model: 'openai/gpt-4o', instructions: 'p.md', max_turns: 3 }) },
      { path: 'p.md', content: '  \n' },
    ];
    const created = await createHarness(repo, accountId, { name: 'n', files }, new Date('2026-02-03T04:05:06.000Z'));
    assert.match(created.id, HARNESS_ID);
    assert.deepEqual(
      { ...created, id: 'x' },
      {
        id: 'x',
        account_id: accountId,
        name: 'n',
        model: 'openai/gpt-4o',
        config: { model: 'openai/gpt-4o', instructions: 'p.md', tools: [], mcp_servers: [], max_turns: 3 },
        files: [
          { path: 'harness.json', bytes: Buffer.byteLength(files[0]!.content) },
          { path: 'p.md', bytes: 3 },
        ],
        total_bytes: Buffer.byteLength(files[0]!.content) + 3,
        instructions_empty: true,
        created_at: '2026-02-03T04:05:06.000Z',
      },
    );
    assert.deepEqual(mock.commandCalls(PutCommand)[0]!.args[0].input.Item, head(created));
  });

  test('an invalid set writes nothing', async () => {
    await assert.rejects(createHarness(repo, accountId, { name: 'n', files: [{ path: '../x', content: '' }] }), HarnessFilesInvalidError);
    assert.equal(mock.calls().length, 0);
  });
});

describe('get', () => {
  test("a consistent read of the head; another account's is undefined; a malformed id reads nothing", async () => {
    const h = harness();
    mock.on(GetCommand).resolves({ Item: head(h) });
    assert.deepEqual(await repo.get(accountId, h.id), h);
    assert.deepEqual(mock.commandCalls(GetCommand)[0]!.args[0].input, { TableName: 't', Key: keys.harness(h.id), ConsistentRead: true });
    assert.equal(await repo.get('other', h.id), undefined);
    mock.reset();
    for (const id of ['', 'h_', 'not-an-id', `${h.id}x`, h.id.replace('h_', 'x_'), 'h_../../x']) assert.equal(await repo.get(accountId, id), undefined, id);
    assert.equal(mock.calls().length, 0);
    mock.on(GetCommand).resolves({});
    assert.equal(await repo.get(accountId, h.id), undefined);
  });
});

describe('getWithFiles', () => {
  test('one consistent Query of the partition, following pages; files in the order they were sent', async () => {
    const h = harness({
      files: [
        { path: 'z.md', bytes: 1 },
        { path: 'a.md', bytes: 1 },
      ],
    });
    mock
      .on(QueryCommand)
      .resolvesOnce({ Items: [fileItem(h, 'a.md', 'A')], LastEvaluatedKey: { pk: 'p', sk: 's' } })
      .resolvesOnce({ Items: [fileItem(h, 'z.md', 'Z'), head(h)] });
    assert.deepEqual(await repo.getWithFiles(accountId, h.id), {
      harness: h,
      files: [
        { path: 'z.md', content: 'Z' },
        { path: 'a.md', content: 'A' },
      ],
    });
    const inputs = mock.commandCalls(QueryCommand).map((c) => c.args[0].input);
    assert.deepEqual(inputs[0], {
      TableName: 't',
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.harness(h.id).pk },
      ConsistentRead: true,
      ExclusiveStartKey: undefined,
    });
    assert.deepEqual(inputs[1]!.ExclusiveStartKey, { pk: 'p', sk: 's' });
  });

  test("files without a head (a create that died), another account's head, a malformed id: undefined", async () => {
    const h = harness();
    mock.on(QueryCommand).resolves({ Items: [fileItem(h, 'a', 'x')] });
    assert.equal(await repo.getWithFiles(accountId, h.id), undefined);
    mock.on(QueryCommand).resolves({ Items: [fileItem(h, 'a', 'x'), head(h)] });
    assert.equal(await repo.getWithFiles('other', h.id), undefined);
    mock.reset();
    assert.equal(await repo.getWithFiles(accountId, 'nope'), undefined);
    assert.equal(mock.calls().length, 0);
  });
});

test('file: one GetItem by path', async () => {
  const h = harness();
  mock.on(GetCommand).resolves({ Item: fileItem(h, 'prompt.md', 'Be kind.') });
  assert.equal(await repo.file(h.id, 'prompt.md'), 'Be kind.');
  assert.deepEqual(mock.commandCalls(GetCommand)[0]!.args[0].input, { TableName: 't', Key: keys.harnessFile(h.id, 'prompt.md'), ConsistentRead: true });
  mock.on(GetCommand).resolves({});
  assert.equal(await repo.file(h.id, 'missing.md'), undefined);
  assert.equal(await repo.file('bad', 'prompt.md'), undefined);
});

test('list: the account’s gsi1 partition, newest first, with the position of the page’s last head', async () => {
  const [a, b] = [harness({ created_at: '2026-01-02T00:00:00.000Z' }), harness()];
  mock.on(QueryCommand).resolves({ Items: [head(a), head(b), head(harness())] });
  const page = await repo.list(accountId, { limit: 2 });
  assert.deepEqual(page.harnesses, [a, b]);
  assert.deepEqual(page.next, { gsi1sk: head(b).gsi1sk, pk: head(b).pk, sk: 'HARNESS' });
  const input = mock.commandCalls(QueryCommand)[0]!.args[0].input;
  assert.deepEqual(
    [input.IndexName, input.ExpressionAttributeValues, input.ScanIndexForward, input.Limit],
    ['gsi1', { ':g': keys.harnessIndexPartition(accountId) }, false, 3],
  );
});
