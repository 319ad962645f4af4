import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, test } from 'vitest';
import { nextPollDelay, parseLastEventId, planStart, sequenceEvents, streamDeadline, streamMaxSeconds } from '#events/log.js';
import type { NodeExecution, RequestEvent, WorkflowRequest } from '#execution/model.js';
import { requestEventsReader } from '#execution/request-events.js';
import {
  eventPayload,
  isTerminalPayload,
  listenerMeter,
  resumeNeedsSnapshot,
  STREAM_TIMING,
  snapshotPayloads,
  snapshotSettled,
  streamMetrics,
} from '#execution/stream.js';
import { jsonFrame, KEEPALIVE_FRAME, sseFrame } from '#platform/http/streaming.js';
import { keys } from '#platform/table/keys.js';
import { mockedDynamoDb } from '../helpers/dynamodb-mock.js';

const ev = (seq: number, status = 'completed'): RequestEvent => ({
  seq,
  created_at: '2026-01-01T00:00:00.000Z',
  data: { node_execution: { id: `n${seq}`, status } },
});
const seqs = (events: RequestEvent[]) => events.map((e) => e.seq);

describe('SSE frames', () => {
  test('a JSON frame is an id line, one data line and a blank line', () => {
    assert.equal(jsonFrame({ a: 'x\ny' }, 7), 'id: 7\ndata: {"a":"x\\ny"}\n\n');
    assert.equal(jsonFrame({ a: 1 }), 'data: {"a":1}\n\n');
  });

  test('multi-line data becomes one data line per line; ids cannot break the frame', () => {
    assert.equal(sseFrame('one\ntwo\r\nthree'), 'data: one\ndata: two\ndata: three\n\n');
    assert.equal(sseFrame('x', '1\n2'), 'id: 12\ndata: x\n\n');
  });

  test('keepalive is the specification’s non-JSON data line', () => {
    assert.equal(KEEPALIVE_FRAME, 'data: keepalive\n\n');
  });
});

describe('connection start', () => {
  test('Last-Event-ID: a non-negative integer, else absent', () => {
    assert.equal(parseLastEventId('12'), 12);
    assert.equal(parseLastEventId(' 0 '), 0);
    for (const bad of [undefined, '', '-1', '1.5', 'abc', '1e3', '12abc', '9'.repeat(16)]) assert.equal(parseLastEventId(bad), undefined, String(bad));
  });

  test('no or an unissued Last-Event-ID starts with a snapshot; a finished request the client has is 204', () => {
    assert.deepEqual(planStart(undefined, 5, false), { kind: 'snapshot' });
    assert.deepEqual(planStart(6, 5, false), { kind: 'snapshot' });
    assert.deepEqual(planStart(3, 5, false), { kind: 'resume', afterSeq: 3 });
    assert.deepEqual(planStart(5, 5, false), { kind: 'resume', afterSeq: 5 });
    assert.deepEqual(planStart(3, 5, true), { kind: 'resume', afterSeq: 3 });
    assert.deepEqual(planStart(5, 5, true), { kind: 'caught_up' });
  });

  test('a resume falls back to a snapshot only when the missed events may have expired', () => {
    const now = Date.parse('2026-03-01T00:00:00.000Z');
    const base = { afterSeq: 4, watermark: 9, nowMs: now, retentionSeconds: 7 * 86400 };
    const old = '2026-02-01T00:00:00.000Z';
    const young = '2026-02-28T00:00:00.000Z';
    assert.equal(resumeNeedsSnapshot({ ...base, firstSeq: 5, requestCreatedAt: old }), false, 'the next event is there');
    assert.equal(resumeNeedsSnapshot({ ...base, firstSeq: 7, requestCreatedAt: old }), true, 'gone, and old enough to have expired');
    assert.equal(resumeNeedsSnapshot({ ...base, firstSeq: undefined, requestCreatedAt: old }), true);
    assert.equal(resumeNeedsSnapshot({ ...base, firstSeq: 7, requestCreatedAt: young }), false, 'too young to expire: a gap, waited for');
    assert.equal(resumeNeedsSnapshot({ ...base, afterSeq: 9, firstSeq: undefined, requestCreatedAt: old }), false, 'nothing after it had to exist');
  });

  test('the stream ends at STREAM_MAX_SECONDS or a margin before the invocation deadline, whichever is first', () => {
    assert.equal(streamMaxSeconds({}), 1800);
    assert.equal(streamMaxSeconds({ STREAM_MAX_SECONDS: '2.5' }), 2.5);
    assert.equal(streamMaxSeconds({ STREAM_MAX_SECONDS: 'nope' }), 1800);
    assert.equal(streamMaxSeconds({ STREAM_MAX_SECONDS: '0' }), 1800);
    assert.equal(streamDeadline(1000, 1800, 900_000), 1000 + 890_000, 'Lambda: 15 minutes less the margin');
    assert.equal(streamDeadline(1000, 1800, 31 * 60_000), 1000 + 1_800_000, 'local: the specified 30 minutes');
    assert.equal(streamDeadline(1000, 2, 900_000), 3000);
    assert.equal(streamDeadline(1000, 1800, 5_000), 1000, 'never before the start');
  });
});

describe('ordered delivery over gaps', () => {
  const options = { nowMs: 10_000, graceMs: 5_000, complete: true, allocatedUpTo: 0 };

  test('consecutive events are delivered in seq order, duplicates and old ones dropped', () => {
    const result = sequenceEvents({ lastSeq: 2 }, [ev(5), ev(3), ev(4), ev(2), ev(4)], { ...options, allocatedUpTo: 5 });
    assert.deepEqual(seqs(result.deliver), [3, 4, 5]);
    assert.deepEqual(result.state, { lastSeq: 5 });
    assert.equal(result.skipped, 0);
  });

  test('a missing seq holds later events back for the grace period, then is skipped', () => {
    const first = sequenceEvents({ lastSeq: 2 }, [ev(3), ev(5), ev(6)], options);
    assert.deepEqual(seqs(first.deliver), [3]);
    assert.deepEqual(first.state, { lastSeq: 3, holeSince: 10_000 });
    const waiting = sequenceEvents(first.state, [ev(5), ev(6)], { ...options, nowMs: 14_999 });
    assert.deepEqual(seqs(waiting.deliver), []);
    assert.equal(waiting.state.holeSince, 10_000, 'the wait counts from when the hole was first seen');
    const skipped = sequenceEvents(waiting.state, [ev(5), ev(6)], { ...options, nowMs: 15_000 });
    assert.deepEqual(seqs(skipped.deliver), [5, 6]);
    assert.deepEqual(skipped.state, { lastSeq: 6 });
    assert.equal(skipped.skipped, 1);
  });

  test('a late writer that fills the hole within the grace period is delivered in order', () => {
    const first = sequenceEvents({ lastSeq: 3 }, [ev(5)], options);
    assert.deepEqual(seqs(first.deliver), []);
    const filled = sequenceEvents(first.state, [ev(4), ev(5)], { ...options, nowMs: 12_000 });
    assert.deepEqual(seqs(filled.deliver), [4, 5]);
    assert.deepEqual(filled.state, { lastSeq: 5 });
  });

  test('a hole at the end is known from the watermark and skipped after the grace period, but only on a complete page', () => {
    const waiting = sequenceEvents({ lastSeq: 3 }, [], { ...options, allocatedUpTo: 5 });
    assert.deepEqual(waiting.state, { lastSeq: 3, holeSince: 10_000 });
    const partial = sequenceEvents(waiting.state, [], { ...options, allocatedUpTo: 5, complete: false, nowMs: 20_000 });
    assert.deepEqual(partial.state, { lastSeq: 3, holeSince: 10_000 });
    const skipped = sequenceEvents(waiting.state, [], { ...options, allocatedUpTo: 5, nowMs: 15_000 });
    assert.deepEqual(skipped.state, { lastSeq: 5 });
    assert.equal(skipped.skipped, 2);
  });

  test('polling backs off from 250 ms to 1 s while idle, and goes on at once when a page was cut', () => {
    assert.equal(nextPollDelay(1000, true, true), STREAM_TIMING.pollMinMs);
    assert.equal(nextPollDelay(250, false, true), 500);
    assert.equal(nextPollDelay(500, false, true), 1000);
    assert.equal(nextPollDelay(1000, false, true), 1000);
    assert.equal(nextPollDelay(0, false, true), 250);
    assert.equal(nextPollDelay(1000, true, false), 0);
  });
});

describe('payloads', () => {
  const requestId = randomUUID();
  const versionId = randomUUID();
  const request = {
    id: requestId,
    workflow_version_id: versionId,
    status: 'completed',
    completed_at: '2026-01-01T00:01:00.000Z',
    error: null,
  } as unknown as WorkflowRequest;
  const node = (nodeId: string, startedAt: string | null): NodeExecution =>
    ({
      id: randomUUID(),
      workflow_request_id: requestId,
      workflow_version_id: versionId,
      node_id: nodeId,
      node_type: 'transform',
      status: startedAt ? 'completed' : 'pending',
      input_data: { secret: 1 },
      output_data: 1,
      attempt_count: 1,
      error: null,
      started_at: startedAt,
    }) as unknown as NodeExecution;

  test('the snapshot lists nodes in the order they started, then the request, so a terminal request comes last', () => {
    const payloads = snapshotPayloads(request, [node('b', null), node('c', '2026-01-01T00:00:02.000Z'), node('a', '2026-01-01T00:00:01.000Z')]);
    assert.deepEqual(
      payloads.map((p) => (p.node_execution?.node_id as string) ?? 'request'),
      ['a', 'c', 'b', 'request'],
    );
    assert.deepEqual(Object.keys(payloads[0]!.node_execution!).sort(), [
      'attempt_count',
      'id',
      'node_id',
      'output_data',
      'status',
      'workflow_request_id',
      'workflow_version_id',
    ]);
    assert.deepEqual(payloads[3], {
      workflow_request: { id: requestId, status: 'completed', workflow_version_id: versionId, completed_at: '2026-01-01T00:01:00.000Z' },
    });
    assert.ok(isTerminalPayload(payloads[3]!));
    assert.ok(!isTerminalPayload(payloads[0]!));
  });

  test('a finished request over unsettled nodes is not a snapshot to send yet', () => {
    assert.ok(snapshotSettled({ status: 'in_progress' }, [{ status: 'in_progress' }]));
    assert.ok(snapshotSettled({ status: 'stopped' }, [{ status: 'completed' }, { status: 'stopped' }, { status: 'skipped' }]));
    assert.ok(!snapshotSettled({ status: 'stopped' }, [{ status: 'completed' }, { status: 'in_progress' }]));
  });

  test('logged node events get their request and version ids; request events pass as they are', () => {
    assert.deepEqual(eventPayload({ node_execution: { id: 'x', status: 'in_progress' } }, request), {
      node_execution: { id: 'x', status: 'in_progress', workflow_request_id: requestId, workflow_version_id: versionId },
    });
    const requestEvent = { workflow_request: { id: requestId, status: 'in_progress' } };
    assert.deepEqual(eventPayload(requestEvent, request), requestEvent);
    assert.ok(isTerminalPayload({ workflow_request: { status: 'stopped' } }));
    assert.ok(!isTerminalPayload({ workflow_request: { status: 'waiting' } }));
  });
});

describe('reads and their cost', () => {
  const { mock, table } = mockedDynamoDb();
  beforeEach(() => {
    mock.reset();
    streamMetrics.reset();
  });

  test('events are one consistent Query bounded to the EVENT# range, with the consumed capacity metered', async () => {
    const id = randomUUID();
    mock
      .on(QueryCommand)
      .resolves({ Items: [{ first_seq: 4, last_seq: 4, events: [{ seq: 4, created_at: 'x', data: { a: 1 } }] }], ConsumedCapacity: { CapacityUnits: 1 } });
    const meter = listenerMeter(0);
    const page = await requestEventsReader(table, meter).eventsAfter(id, 3, 100, true);
    assert.deepEqual(page, { events: [{ seq: 4, created_at: 'x', data: { a: 1 } }], complete: true, pageEnd: 4 });
    const input = mock.commandCalls(QueryCommand)[0]!.args[0].input;
    assert.equal(input.KeyConditionExpression, 'pk = :pk AND sk BETWEEN :from AND :to');
    assert.deepEqual(input.ExpressionAttributeValues?.[':from'], keys.requestEvent(id, 4).sk);
    assert.deepEqual(input.ExpressionAttributeValues?.[':to'], 'EVENT#9999999999');
    assert.equal(input.ConsistentRead, true);
    assert.equal(input.ReturnConsumedCapacity, 'TOTAL');
    assert.equal(input.Limit, 100);
    assert.deepEqual([meter.queries, meter.readUnits, streamMetrics.queries, streamMetrics.readUnits], [1, 1, 1, 1]);
    meter.close(10_000);
    assert.equal(streamMetrics.listenerSeconds(), 10);
    assert.deepEqual(streamMetrics.perListenerSecond(), { queries: 0.1, gets: 0, readUnits: 0.1 });
  });

  test('the watermark is the newest page’s last seq, read before the request, both consistently', async () => {
    const id = randomUUID();
    mock.on(QueryCommand).resolves({ Items: [{ last_seq: 7 }], ConsumedCapacity: { CapacityUnits: 1 } });
    mock
      .on(GetCommand, { Key: keys.workflowRequest(id) })
      .resolves({ Item: { ...keys.workflowRequest(id), entity: 'workflow_request', id, status: 'pending' }, ConsumedCapacity: { CapacityUnits: 1 } });
    const meter = listenerMeter(0);
    const found = await requestEventsReader(table, meter).requestWithWatermark(id);
    assert.deepEqual(found, { id, status: 'pending', event_seq: 7 });
    const query = mock.commandCalls(QueryCommand)[0]!.args[0].input;
    assert.deepEqual([query.ScanIndexForward, query.Limit, query.ConsistentRead, query.ProjectionExpression], [false, 1, true, 'last_seq']);
    const get = mock.commandCalls(GetCommand)[0]!.args[0].input;
    assert.equal(get.ConsistentRead, true);
    assert.deepEqual(
      mock.calls().map((c) => c.args[0].constructor.name),
      ['QueryCommand', 'GetCommand'],
    );
    assert.deepEqual([meter.queries, meter.gets], [1, 1]);
    meter.close(0);
  });
});
