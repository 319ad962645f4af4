import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { addCounts, equalityFilter, guardedSet, setFields } from '#platform/table/update-expressions.js';

describe('setFields', () => {
  test('sets each defined field through its own name and value; null is a value, undefined is left alone', () => {
    assert.deepEqual(setFields({ url: 'https://a.example/', description: null, events: undefined }), {
      update: 'SET #url = :url, #description = :description',
      names: { '#url': 'url', '#description': 'description' },
      values: { ':url': 'https://a.example/', ':description': null },
    });
  });

  test('removes the attributes named, after what it sets, or alone', () => {
    assert.deepEqual(setFields({ updated_at: 'now' }, ['rps', 'concurrency']), {
      update: 'SET #updated_at = :updated_at REMOVE #rps, #concurrency',
      names: { '#updated_at': 'updated_at', '#rps': 'rps', '#concurrency': 'concurrency' },
      values: { ':updated_at': 'now' },
    });
    assert.deepEqual(setFields({}, ['rps']), { update: 'REMOVE #rps', names: { '#rps': 'rps' }, values: {} });
  });

  test('an update that changes nothing is refused', () => {
    assert.throws(() => setFields({}), RangeError);
    assert.throws(() => setFields({ a: undefined }), RangeError);
  });
});

describe('guardedSet', () => {
  test('sets the fields on condition that the status is one of `from`', () => {
    assert.deepEqual(guardedSet({ status: 'running', started_at: 'now' }, ['queued', 'blocked']), {
      update: 'SET #status = :status, #started_at = :started_at',
      condition: '#status IN (:from0, :from1)',
      names: { '#status': 'status', '#started_at': 'started_at' },
      values: { ':status': 'running', ':started_at': 'now', ':from0': 'queued', ':from1': 'blocked' },
    });
  });

  test('names the status for its condition even when it does not set it', () => {
    const { names, update } = guardedSet({ output: 1 }, ['running']);
    assert.deepEqual([names, update], [{ '#output': 'output', '#status': 'status' }, 'SET #output = :output']);
  });
});

describe('addCounts', () => {
  test('adds the counts, leaving out zeros, and writes the first-count attributes only where absent', () => {
    assert.deepEqual(addCounts({ cost_micro_usd: 250, node_count: 0, request_count: 1 }, { date: '2026-02-28', entity: 'activity_day' }), {
      update:
        'SET #date = if_not_exists(#date, :date), #entity = if_not_exists(#entity, :entity) ADD #cost_micro_usd :cost_micro_usd, #request_count :request_count',
      names: { '#date': 'date', '#entity': 'entity', '#cost_micro_usd': 'cost_micro_usd', '#request_count': 'request_count' },
      values: { ':date': '2026-02-28', ':entity': 'activity_day', ':cost_micro_usd': 250, ':request_count': 1 },
    });
  });

  test('without first-count attributes it is an ADD alone; negative counts lower the counter', () => {
    assert.deepEqual(addCounts({ in_progress: -1 }), {
      update: 'ADD #in_progress :in_progress',
      names: { '#in_progress': 'in_progress' },
      values: { ':in_progress': -1 },
    });
  });

  test('a count of nothing is refused', () => {
    assert.throws(() => addCounts({}), RangeError);
    assert.throws(() => addCounts({ runs: 0 }, { entity: 'x' }), RangeError);
  });
});

describe('equalityFilter', () => {
  test('ANDs the defined filters; none is no filter', () => {
    assert.deepEqual(equalityFilter({ status: 'failed', run_id: undefined, machine_id: 'm' }), {
      expression: '#status = :status AND #machine_id = :machine_id',
      names: { '#status': 'status', '#machine_id': 'machine_id' },
      values: { ':status': 'failed', ':machine_id': 'm' },
    });
    assert.equal(equalityFilter({ status: undefined }), undefined);
  });
});
