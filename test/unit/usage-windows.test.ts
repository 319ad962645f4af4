import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { quotaDocument, type WindowsItem } from '#usage/model.js';
import { recordUsageItem } from '#usage/usage-repository.js';

const NOW = Date.parse('2026-03-10T12:00:00Z');
const account = { plan: 'pro' as const, extra_usage: false, balance_micro_usd: 5_000_000, five_hour_allowance: 1_000 };

describe('usage windows', () => {
  test('a closed window is empty; a full one is limited with its reset, and blocks without extra usage', () => {
    const item: WindowsItem = { five_hour_start: NOW - 1_000_000, five_hour_used: 1_000, week_start: NOW - 1_000_000, week_used: 1_000 };
    const doc = quotaDocument(account, item, NOW);
    assert.equal(doc.mode, 'blocked');
    assert.equal(doc.windows[0]!.status, 'limited');
    assert.equal(doc.windows[0]!.resets_in_seconds, 18_000 - 1_000);
    assert.equal(doc.retry_after_seconds, 17_000);
    assert.equal(doc.windows[1]!.status, 'allowed');
    assert.equal(quotaDocument({ ...account, extra_usage: true }, item, NOW).mode, 'extra');
    // Five hours later the 5-hour window has closed: empty, plan mode.
    const later = quotaDocument(account, item, NOW + 18_000_000);
    assert.equal(later.mode, 'plan');
    assert.equal(later.windows[0]!.used_percent, 0);
  });

  test('an unreadable item shows unknown windows without numbers', () => {
    const doc = quotaDocument(account, undefined, NOW);
    assert.deepEqual(doc.windows, [
      { kind: '5h', status: 'unknown' },
      { kind: 'week', status: 'unknown' },
    ]);
    assert.equal(doc.mode, 'plan');
  });

  test('a cost adds to an open window and opens a closed one, conditioned on the starts read', () => {
    const open = recordUsageItem('t', 'a', { five_hour_start: NOW - 10, five_hour_used: 5, week_start: NOW - 10, week_used: 5 }, 7, 0, NOW).Update!;
    assert.match(open.UpdateExpression!, /ADD #five_hour_used :cost, #week_used :cost/);
    assert.equal(open.ConditionExpression, '#five_hour_start = :seen_five_hour_start AND #week_start = :seen_week_start');
    const first = recordUsageItem('t', 'a', {}, 7, 3, NOW).Update!;
    assert.match(first.UpdateExpression!, /#five_hour_start = :now, #five_hour_used = :cost/);
    assert.match(first.UpdateExpression!, /#month = :month, #spent = :extra/);
    assert.equal(first.ConditionExpression, 'attribute_not_exists(#five_hour_start) AND attribute_not_exists(#week_start) AND attribute_not_exists(#month)');
    assert.throws(() => recordUsageItem('t', 'a', {}, 0, 0, NOW), RangeError);
  });
});
