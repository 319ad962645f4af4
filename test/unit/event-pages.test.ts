import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, test } from 'vitest';
import { EVENT_PAGE_BYTES, pageEvents } from '#events/pages.js';
import { requestEventsReader } from '#execution/request-events.js';
import { workflowRequestsRepo } from '#execution/workflow-requests-repository.js';
import { keys } from '#platform/table/keys.js';
import { conditionFailed, mockedDynamoDb } from '../helpers/dynamodb-mock.js';

const { mock, table } = mockedDynamoDb();

beforeEach(() => mock.reset());

const puts = () => mock.commandCalls(PutCommand).map((c) => c.args[0].input);
const page = (id: string, seqs: number[]) => ({
  ...keys.requestEvent(id, seqs[0]!),
  first_seq: seqs[0],
  last_seq: seqs.at(-1),
  events: seqs.map((seq) => ({ seq, created_at: 't', data: { workflow_request: { seq } } })),
});

describe('event log pages', () => {
  test('a flush reads where the log ends and puts its events as one page keyed by the first seq, only if that key is free', async () => {
    const id = randomUUID();
    mock.on(QueryCommand).resolves({ Items: [{ last_seq: 9 }] });
    mock.on(PutCommand).resolves({});
    const events = await workflowRequestsRepo(table).appendEvents(id, [
      { workflow_request: { id } },
      { workflow_request: { id } },
      { workflow_request: { id } },
    ]);
    assert.deepEqual(
      events.map((e) => e.seq),
      [10, 11, 12],
    );
    const query = mock.commandCalls(QueryCommand)[0]!.args[0].input;
    assert.equal(query.ScanIndexForward, false);
    assert.equal(query.Limit, 1);
    assert.equal(query.ConsistentRead, true);
    assert.equal(puts().length, 1);
    const put = puts()[0]!;
    assert.equal(put.Item!.sk, keys.requestEvent(id, 10).sk);
    assert.equal(put.ConditionExpression, 'attribute_not_exists(pk)');
    assert.deepEqual([put.Item!.first_seq, put.Item!.last_seq, pageEvents(put.Item!).length], [10, 12, 3]);
  });

  test('with the next seq known there is no read; a lost race reads again and lands after the other writer', async () => {
    const id = randomUUID();
    mock.on(QueryCommand).resolves({ Items: [{ last_seq: 6 }] });
    mock.on(PutCommand).rejectsOnce(conditionFailed()).resolves({});
    const events = await workflowRequestsRepo(table).appendEvents(id, [{ workflow_request: { id } }], 5);
    assert.deepEqual(
      puts().map((p) => p.Item!.first_seq),
      [5, 7],
    );
    assert.deepEqual(
      events.map((e) => e.seq),
      [7],
    );
    assert.equal(mock.commandCalls(QueryCommand).length, 1);
  });

  test('a guess that is right costs one put and nothing else', async () => {
    const id = randomUUID();
    mock.on(PutCommand).resolves({});
    await workflowRequestsRepo(table).appendEvents(id, [{ workflow_request: { id } }], 4);
    assert.equal(mock.commandCalls(QueryCommand).length, 0);
    assert.equal(puts()[0]!.Item!.sk, keys.requestEvent(id, 4).sk);
  });

  test('with an identity, a put refused at the expected seq reads the log from there and leaves out what another delivery logged', async () => {
    // Prepare: seq 5 on holds a's two events (logged by an earlier delivery of the task that hands them on) and another writer's.
    const id = randomUUID();
    const node = (status: string) => ({ node_execution: { id: 'a', status, attempt_count: 1 } });
    mock
      .on(QueryCommand, { ScanIndexForward: true })
      .resolves({
        Items: [
          {
            ...page(id, [5, 6, 7]),
            events: [5, 6, 7].map((seq, i) => ({
              seq,
              created_at: 't',
              data: [node('in_progress'), node('completed'), { workflow_request: { id, status: 'x' } }][i],
            })),
          },
        ],
      })
      .on(QueryCommand, { ScanIndexForward: false })
      .resolves({ Items: [{ last_seq: 7 }] });
    mock.on(PutCommand).rejectsOnce(conditionFailed()).resolves({});
    // Act: the same two events and one of this delivery's own.
    const events = await workflowRequestsRepo(table).appendEvents(
      id,
      [node('in_progress'), node('completed'), { node_execution: { id: 'b', status: 'in_progress', attempt_count: 1 } }],
      5,
      {
        identity: (d) => JSON.stringify(d),
      },
    );
    // Assert: only the new one, after the log's end.
    assert.deepEqual(
      events.map((e) => [e.seq, e.data.node_execution?.id]),
      [[8, 'b']],
    );
    assert.deepEqual(
      puts().map((p) => [p.Item!.first_seq, pageEvents(p.Item!).length]),
      [
        [5, 3],
        [8, 1],
      ],
    );
  });

  test('with an identity, events all logged already are not logged again; a put that lands at the expected seq reads nothing', async () => {
    const id = randomUUID();
    const done = { node_execution: { id: 'a', status: 'completed', attempt_count: 1 } };
    mock.on(QueryCommand).resolves({ Items: [{ ...page(id, [3]), events: [{ seq: 3, created_at: 't', data: done }] }] });
    mock.on(PutCommand).rejectsOnce(conditionFailed()).resolves({});
    const identity = (d: unknown) => JSON.stringify(d);
    assert.deepEqual(await workflowRequestsRepo(table).appendEvents(id, [done], 3, { identity }), []);
    assert.equal(puts().length, 1);

    mock.reset();
    mock.on(PutCommand).resolves({});
    await workflowRequestsRepo(table).appendEvents(id, [done], 3, { identity });
    assert.equal(mock.commandCalls(QueryCommand).length, 0);
  });

  test('pages never exceed the page size: big events get pages of their own', async () => {
    const id = randomUUID();
    mock.on(QueryCommand).resolves({ Items: [] });
    mock.on(PutCommand).resolves({});
    const big = 'x'.repeat(Math.floor(EVENT_PAGE_BYTES * 0.6));
    await workflowRequestsRepo(table).appendEvents(id, [
      { node_execution: { output_data: big } },
      { node_execution: { output_data: big } },
      { workflow_request: { id } },
    ]);
    assert.deepEqual(
      puts().map((p) => [p.Item!.first_seq, p.Item!.last_seq]),
      [
        [1, 1],
        [2, 3],
      ],
    );
  });

  test('reading on from a page end is one forward Query from the next key', async () => {
    const id = randomUUID();
    mock.on(QueryCommand).resolves({ Items: [page(id, [7, 8]), page(id, [9, 10])] });
    const result = await requestEventsReader(table).eventsAfter(id, 6, 100, true);
    assert.deepEqual(
      result.events.map((e) => e.seq),
      [7, 8, 9, 10],
    );
    assert.equal(result.pageEnd, 10);
    const queries = mock.commandCalls(QueryCommand).map((c) => c.args[0].input);
    assert.equal(queries.length, 1);
    assert.equal(queries[0]!.ExpressionAttributeValues![':from'], keys.requestEvent(id, 7).sk);
  });

  test('resuming inside a page looks back for the page that holds the next seq, then reads on after it', async () => {
    const id = randomUUID();
    mock
      .on(QueryCommand, { ScanIndexForward: false })
      .resolves({ Items: [page(id, [5, 6, 7, 8])] })
      .on(QueryCommand, { ScanIndexForward: true })
      .resolves({ Items: [page(id, [9, 10])] });
    const result = await requestEventsReader(table).eventsAfter(id, 6, 100, false);
    assert.deepEqual(
      result.events.map((e) => e.seq),
      [7, 8, 9, 10],
    );
    const [back, forward] = mock.commandCalls(QueryCommand).map((c) => c.args[0].input);
    assert.equal(back!.ExpressionAttributeValues![':to'], keys.requestEvent(id, 6).sk);
    assert.equal(forward!.ExpressionAttributeValues![':from'], keys.requestEvent(id, 9).sk);
  });
});
