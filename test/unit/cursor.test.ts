import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { CursorFilterMismatchError, CursorInvalidError } from '#platform/errors.js';
import { decodeCursor, encodeCursor } from '#platform/http/cursor.js';

describe('cursors', () => {
  test('round-trip the position for the same scope and filters', () => {
    const cursor = encodeCursor('runs:acct', { status: 'running', harness: undefined }, { sk: 'RUN#1' });
    assert.deepEqual(decodeCursor(cursor, 'runs:acct', { status: 'running' }), { sk: 'RUN#1' });
  });

  test('other filters or another list are cursor_filter_mismatch', () => {
    const cursor = encodeCursor('runs:acct', { status: 'running' }, { sk: 'RUN#1' });
    assert.throws(() => decodeCursor(cursor, 'runs:acct', { status: 'failed' }), CursorFilterMismatchError);
    assert.throws(() => decodeCursor(cursor, 'runs:other', { status: 'running' }), CursorFilterMismatchError);
  });

  test('anything the service did not issue is cursor_invalid', () => {
    const cursor = encodeCursor('s', {}, { sk: 'X' });
    const [payload, sum] = cursor.split('.') as [string, string];
    const forged = Buffer.from(JSON.stringify({ s: 's', f: 'x', p: { sk: 'Y' } })).toString('base64url');
    for (const bad of ['', 'abc', `${payload}`, `${payload}.${sum}.x`, `${forged}.${sum}`, `${payload}.${sum.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'))}`]) {
      assert.throws(() => decodeCursor(bad, 's', {}), CursorInvalidError, bad);
    }
  });
});
