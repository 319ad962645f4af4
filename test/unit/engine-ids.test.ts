import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'vitest';
import { interactionIdFor } from '#execution/approval.js';
import { childPayload, childRequestIdFor } from '#execution/child-workflow.js';
import { isUuid } from '#platform/uuid.js';

describe('ids derived from a node execution', () => {
  test('are UUIDs, stable for the same execution and distinct across executions and kinds', () => {
    const execution = randomUUID();
    assert.ok(isUuid(interactionIdFor(execution)));
    assert.ok(isUuid(childRequestIdFor(execution)));
    assert.equal(interactionIdFor(execution), interactionIdFor(execution));
    assert.equal(childRequestIdFor(execution), childRequestIdFor(execution));
    assert.notEqual(interactionIdFor(execution), childRequestIdFor(execution));
    assert.notEqual(interactionIdFor(execution), interactionIdFor(randomUUID()));
  });
});

describe('child payload', () => {
  test('one object-valued parent passes that object; anything else passes the keyed input', () => {
    assert.deepEqual(childPayload({ p: { n: 1 } }, { parent_count: 1 }), { n: 1 });
    assert.deepEqual(childPayload({ p: 'text' }, { parent_count: 1 }), { p: 'text' });
    assert.deepEqual(childPayload({ a: { n: 1 }, b: { n: 2 } }, { parent_count: 2 }), { a: { n: 1 }, b: { n: 2 } });
    assert.deepEqual(childPayload({ n: 5 }, { parent_count: 0 }), { n: 5 });
  });
});
