import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { TABLE_DEFINITION } from '#platform/table/definition.js';
import { entityOf, TABLE_ATTRIBUTES } from '#platform/table/items.js';
import { keys } from '#platform/table/keys.js';

describe('entityOf', () => {
  test('drops the keys, every index key, the entity tag and the TTL, and keeps the rest as stored', () => {
    const item = {
      ...keys.hook('hook_1'),
      ...keys.hooksIndex('acc', '2026-01-01T00:00:00.000Z', 'hook_1'),
      entity: 'hook',
      ttl: 1_800_000_000,
      id: 'hook_1',
      name: 'n',
      previous_valid_until: null,
      config: { nested: { pk: 'kept' } },
    };
    assert.deepEqual(entityOf(item), { id: 'hook_1', name: 'n', previous_valid_until: null, config: { nested: { pk: 'kept' } } });
  });

  test('drops the internal attributes the caller names too, and leaves the item as it was', () => {
    const item = { pk: 'p', sk: 's', id: 'w', name: 'Ann', name_lower: 'ann', password_hash: 'h' };
    assert.deepEqual(entityOf(item, ['name_lower', 'password_hash']), { id: 'w', name: 'Ann' });
    assert.deepEqual(Object.keys(item), ['pk', 'sk', 'id', 'name', 'name_lower', 'password_hash']);
  });

  test('defaults stand in for the attributes the item lacks, never for those it holds (null included)', () => {
    const item = { pk: 'p', sk: 's', id: 'm', current_run_id: null };
    assert.deepEqual(entityOf(item, [], { current_run_id: 'r', queued_runs: 0 }), { id: 'm', current_run_id: null, queued_runs: 0 });
  });

  test('the table attributes are those of the table definition', () => {
    const indexKeys = TABLE_DEFINITION.globalSecondaryIndexes.flatMap((index) => [index.partitionKey, index.sortKey]);
    assert.deepEqual([...TABLE_ATTRIBUTES].sort(), ['entity', 'pk', 'sk', 'ttl', ...indexKeys].sort());
  });
});
