import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, test } from 'vitest';
import { keys } from '#platform/table/keys.js';
import { CHECK_REUSE_MS, type PendingUsage, usageMeter } from '#usage/index.js';
import { unfundedBy, withPending } from '#usage/model.js';
import { mockedDynamoDb } from '../helpers/dynamodb-mock.js';

/**
 * The check before each node execution and model turn (lib/usage, check):
 * against the windows and what the work owes besides, its pending usage
 * (a workflow request's flat fees, on its nodes until its end) counted at
 * its bound, read exactly only near a limit.
 */

const NOW = Date.parse('2026-11-20T12:00:00.000Z');
const HOUR = 3_600_000;

/** A pending sum whose exact reader counts its reads. */
function pendingOf(atMost: number, exact: number): PendingUsage & { reads: number } {
  const pending = {
    atMost,
    reads: 0,
    exact: async () => {
      pending.reads += 1;
      return exact;
    },
  };
  return pending;
}

function meterOn(account: Record<string, unknown>, windows: Record<string, unknown> | undefined) {
  const { mock, table } = mockedDynamoDb();
  const accountId = randomUUID();
  mock.on(GetCommand, { Key: keys.account(accountId) }).resolves({ Item: { ...keys.account(accountId), id: accountId, ...account } });
  mock.on(GetCommand, { Key: keys.usageWindows(accountId) }).resolves({ Item: windows && { ...keys.usageWindows(accountId), ...windows } });
  let now = NOW;
  const meter = usageMeter(table, () => now);
  return { meter, accountId, mock, advance: (ms: number) => (now += ms) };
}

/** A pro account whose 5-hour allowance is `fiveHour` microdollars, `used` of it used in a window opened an hour ago. */
const plan = (fiveHour: number, extra: { extra_usage: boolean; balance_micro_usd: number } = { extra_usage: false, balance_micro_usd: 0 }) => ({
  plan: 'pro',
  five_hour_allowance: fiveHour,
  ...extra,
});
const used = (microUsd: number) => ({ five_hour_start: NOW - HOUR, five_hour_used: microUsd, week_start: NOW - HOUR, week_used: microUsd });

describe('the check before a node execution: pending usage', () => {
  let pending: ReturnType<typeof pendingOf>;
  beforeEach(() => {
    pending = pendingOf(900, 100);
  });

  test('with room beyond the bound, it is funded without reading the pending sum', async () => {
    const { meter, accountId } = meterOn(plan(20_000_000), used(1_000));
    assert.equal(await meter.check(accountId, { unpaidExtraMicroUsd: 0, pending }), undefined);
    assert.equal(pending.reads, 0);
  });

  test('near the limit it reads the exact sum: room for it, funded; a fee that fills the window, usage_window_exceeded', async () => {
    // 250 of 500 used: the bound (900) would fill the window, the exact 100 does not.
    const room = meterOn(plan(500), used(250));
    assert.equal(await room.meter.check(room.accountId, { unpaidExtraMicroUsd: 0, pending }), undefined);
    assert.equal(pending.reads, 1);
    // 400 of 500 used: the one fee settled so far fills it.
    const full = meterOn(plan(500), used(400));
    const refused = await full.meter.check(full.accountId, { unpaidExtraMicroUsd: 0, pending });
    assert.equal(refused?.code, 'usage_window_exceeded');
    assert.match(refused!.message, /resets in \d+ seconds/);
    assert.equal(pending.reads, 2);
  });

  test('a window closed (or never opened) counts the pending fees as a window of their own: 100 of an allowance of 100 is full', async () => {
    const never = meterOn(plan(100), undefined);
    assert.equal((await never.meter.check(never.accountId, { unpaidExtraMicroUsd: 0, pending }))?.code, 'usage_window_exceeded');
    const closed = meterOn(plan(100), { five_hour_start: NOW - 6 * HOUR, five_hour_used: 5_000 });
    assert.equal((await closed.meter.check(closed.accountId, { unpaidExtraMicroUsd: 0, pending }))?.code, 'usage_window_exceeded');
    assert.equal(await closed.meter.check(closed.accountId, { unpaidExtraMicroUsd: 0, pending: pendingOf(900, 0) }), undefined);
  });

  test('a window full without the pending fees is refused without reading them', async () => {
    const { meter, accountId } = meterOn(plan(500), used(500));
    assert.equal((await meter.check(accountId, { unpaidExtraMicroUsd: 0, pending }))?.code, 'usage_window_exceeded');
    assert.equal(pending.reads, 0);
  });

  test('extra mode: the wallet must cover the unpaid extra and the pending fees, else out_of_funds; a wallet with room reads nothing', async () => {
    const rich = meterOn(plan(500, { extra_usage: true, balance_micro_usd: 5_000_000 }), used(600));
    assert.equal(await rich.meter.check(rich.accountId, { unpaidExtraMicroUsd: 1_000, pending }), undefined);
    assert.equal(pending.reads, 0);
    // 1,150 in the wallet: 1,000 unpaid extra and the bound (900) would empty it; the exact 100 leaves 50.
    const some = meterOn(plan(500, { extra_usage: true, balance_micro_usd: 1_150 }), used(600));
    assert.equal(await some.meter.check(some.accountId, { unpaidExtraMicroUsd: 1_000, pending }), undefined);
    assert.equal(pending.reads, 1);
    // 1,100: the unpaid extra and the one fee settled take all of it.
    const dry = meterOn(plan(500, { extra_usage: true, balance_micro_usd: 1_100 }), used(600));
    assert.equal((await dry.meter.check(dry.accountId, { unpaidExtraMicroUsd: 1_000, pending }))?.code, 'out_of_funds');
    // A window the fees alone fill is extra-funded as well.
    const filled = meterOn(plan(500, { extra_usage: true, balance_micro_usd: 50 }), used(450));
    assert.equal((await filled.meter.check(filled.accountId, { unpaidExtraMicroUsd: 0, pending }))?.code, 'out_of_funds');
  });

  test('without pending usage (a run) the check is the windows and the unpaid extra alone', async () => {
    const { meter, accountId } = meterOn(plan(500, { extra_usage: true, balance_micro_usd: 100 }), used(600));
    assert.equal(await meter.check(accountId, { unpaidExtraMicroUsd: 99 }), undefined);
    assert.equal((await meter.check(accountId, { unpaidExtraMicroUsd: 100 }))?.code, 'out_of_funds');
  });

  test('an unpaid extra that may be behind (a copy of the request handed on with its task) is read only when the wallet decides', async () => {
    let reads = 0;
    const now = (microUsd: number) => async () => {
      reads += 1;
      return microUsd;
    };
    // Plan mode with room for the most that can be pending: the wallet does not decide, nothing is read.
    const roomy = meterOn(plan(20_000_000, { extra_usage: true, balance_micro_usd: 1_000 }), used(0));
    assert.equal(await roomy.meter.check(roomy.accountId, { unpaidExtraMicroUsd: 0, unpaidExtraNow: now(5_000), pending }), undefined);
    assert.equal(reads + pending.reads, 0);
    // Extra mode: the copy says 0 unpaid, the request 1,000 of the 1,050 in the wallet; with the fee settled, nothing is left.
    const extra = meterOn(plan(500, { extra_usage: true, balance_micro_usd: 1_050 }), used(600));
    assert.equal((await extra.meter.check(extra.accountId, { unpaidExtraMicroUsd: 0, unpaidExtraNow: now(1_000), pending }))?.code, 'out_of_funds');
    assert.equal(reads, 1);
    assert.equal(pending.reads, 1);
    // Already refused with what the copy says: refused without reading.
    const dry = meterOn(plan(500, { extra_usage: true, balance_micro_usd: 10 }), used(600));
    assert.equal((await dry.meter.check(dry.accountId, { unpaidExtraMicroUsd: 10, unpaidExtraNow: now(10), pending }))?.code, 'out_of_funds');
    assert.equal(reads, 1);
  });

  test('the reused windows read (CHECK_REUSE_MS) never hides a fee settled since: the pending sum is read afresh by every check that needs it', async () => {
    // Prepare: one node of the request settled (100 pending), then a second, within the reuse time of the first check.
    const { meter, accountId, mock, advance } = meterOn(plan(250), used(0));
    let fees = 100;
    const live: PendingUsage = { atMost: 900, exact: async () => fees };
    // Act / Assert: the first check reads the windows; the next ones reuse them, but not the fees.
    assert.equal(await meter.check(accountId, { unpaidExtraMicroUsd: 0, pending: live }), undefined);
    fees = 200;
    advance(CHECK_REUSE_MS / 4);
    assert.equal(await meter.check(accountId, { unpaidExtraMicroUsd: 0, pending: live }), undefined);
    fees = 300;
    advance(CHECK_REUSE_MS / 4);
    assert.equal((await meter.check(accountId, { unpaidExtraMicroUsd: 0, pending: live }))?.code, 'usage_window_exceeded');
    assert.equal(mock.commandCalls(GetCommand).length, 2, 'the account and its windows, read once for the three checks');
  });
});

describe('pending usage in the windows (model)', () => {
  test('an open window gets it added; a closed one opens now with it; nothing pending or an unreadable item is left as it is', () => {
    const item = { five_hour_start: NOW - HOUR, five_hour_used: 40, week_start: NOW - 8 * 24 * HOUR, week_used: 9_000 };
    assert.deepEqual(withPending(item, 100, NOW), { five_hour_start: NOW - HOUR, five_hour_used: 140, week_start: NOW, week_used: 100 });
    assert.equal(withPending(item, 0, NOW), item);
    assert.equal(withPending(undefined, 100, NOW), undefined);
  });

  test('an unreadable windows item decides nothing, pending or not', () => {
    assert.equal(unfundedBy({ plan: 'pro', five_hour_allowance: 1, extra_usage: false, balance_micro_usd: 0 }, undefined, NOW, 0, 1_000), undefined);
  });
});
