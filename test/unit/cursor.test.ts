import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'vitest';
import { CursorFilterMismatchError, CursorInvalidError } from '#platform/errors.js';
import { decodeCursor, encodeCursor } from '#platform/http/cursor.js';
import type { ServiceKeySource } from '#platform/secrets/service-key.js';

const keyOf = (fill: number): ServiceKeySource => ({ load: async () => Buffer.alloc(32, fill) });
const KEY = keyOf(1);

describe('cursors', () => {
  test('round-trip the position for the same scope and filters', async () => {
    const cursor = await encodeCursor('runs:acct', { status: 'running', harness: undefined }, { sk: 'RUN#1' }, KEY);
    assert.deepEqual(await decodeCursor(cursor, 'runs:acct', { status: 'running' }, KEY), { sk: 'RUN#1' });
  });

  test('other filters or another list are cursor_filter_mismatch', async () => {
    const cursor = await encodeCursor('runs:acct', { status: 'running' }, { sk: 'RUN#1' }, KEY);
    await assert.rejects(decodeCursor(cursor, 'runs:acct', { status: 'failed' }, KEY), CursorFilterMismatchError);
    await assert.rejects(decodeCursor(cursor, 'runs:other', { status: 'running' }, KEY), CursorFilterMismatchError);
  });

  test('anything the service did not issue is cursor_invalid', async () => {
    const cursor = await encodeCursor('s', {}, { sk: 'X' }, KEY);
    const [payload, sum] = cursor.split('.') as [string, string];
    const forged = Buffer.from(JSON.stringify({ s: 's', f: 'x', p: { sk: 'Y' } })).toString('base64url');
    const flipped = `${payload}.${sum.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'))}`;
    for (const bad of ['', 'abc', `${payload}`, `${payload}.${sum}.x`, `${forged}.${sum}`, flipped, `${payload}.${'é'.repeat(11)}`]) {
      await assert.rejects(decodeCursor(bad, 's', {}, KEY), CursorInvalidError, bad);
    }
  });

  test('a changed position with its checksum recomputed, as the unkeyed SHA-256 allowed, is cursor_invalid', async () => {
    const cursor = await encodeCursor('machines:acct', {}, { after: 'MACHINE#a' }, KEY);
    const body = JSON.parse(Buffer.from(cursor.split('.')[0]!, 'base64url').toString('utf8'));
    const payload = Buffer.from(JSON.stringify({ ...body, p: { after: 'MACHINE#other-account' } })).toString('base64url');
    // The checksum cursors carried before they were signed, and the same at the signature's length.
    const sha = createHash('sha256').update(`cursor:v1:${payload}`).digest('base64url');
    for (const sum of [sha.slice(0, 16), sha.slice(0, 22)]) {
      await assert.rejects(decodeCursor(`${payload}.${sum}`, 'machines:acct', {}, KEY), CursorInvalidError, sum);
    }
  });

  test('a cursor signed with another key is cursor_invalid', async () => {
    const cursor = await encodeCursor('s', {}, { sk: 'X' }, keyOf(2));
    await assert.rejects(decodeCursor(cursor, 's', {}, KEY), CursorInvalidError);
    assert.deepEqual(await decodeCursor(cursor, 's', {}, keyOf(2)), { sk: 'X' });
  });

  test('a key that cannot be read fails the call, not as a refused cursor', async () => {
    const missing: ServiceKeySource = { load: () => Promise.reject(new Error('The service key is not configured')) };
    await assert.rejects(encodeCursor('s', {}, { sk: 'X' }, missing), /not configured/);
    const cursor = await encodeCursor('s', {}, { sk: 'X' }, KEY);
    await assert.rejects(decodeCursor(cursor, 's', {}, missing), /not configured/);
  });
});
