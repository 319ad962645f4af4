import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, test, vi } from 'vitest';
import { adminCommands } from '#accounts/admin-commands.js';
import { createDynamoDb } from '#platform/aws/clients.js';
import { readEnv } from '#platform/config/env.js';
import { keys } from '#platform/table/keys.js';
import { usageMeter } from '#usage/index.js';
import { type Json, jsonCaller } from '../helpers/api.js';
import { startFaultProxy } from '../helpers/dynamodb-fault-proxy.js';
import { signedUpUser, startTestStack } from '../helpers/stack.js';
import { apiFor, createVersion, node, runVersion, settledTree, type TestNode, transform } from '../helpers/workflows.js';

/**
 * Metering, usage windows and funding (decisions.md, Money) through the
 * local gateway: allowances are made tiny with account:set-limits, so a
 * run of local/echo (priced per token like any model) fills them.
 */
let stack: Awaited<ReturnType<typeof startTestStack>>;

beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack.stop();
});

const call = jsonCaller(() => stack.url);
type User = Awaited<ReturnType<typeof signedUpUser>>;
const post = (user: User, path: string, body: unknown) => call('POST', path, user.token, body, { 'Idempotency-Key': randomUUID() });
const get = (user: User, path: string) => call('GET', path, user.token);
const admin = () => adminCommands(stack.table);

async function setup(user: User, model = 'local/echo'): Promise<{ harnessId: string; machineId: string }> {
  const files = [
    { path: 'harness.json', content: JSON.stringify({ model, instructions: 'prompt.md' }) },
    { path: 'prompt.md', content: 'Echo.' },
  ];
  const harness = await post(user, '/v2/harnesses', { name: 'echo', files });
  assert.equal(harness.status, 201, JSON.stringify(harness.body));
  const machine = await call('POST', '/v1/machines', user.token, { name: 'm' });
  assert.equal(machine.status, 201, JSON.stringify(machine.body));
  return { harnessId: harness.body.id, machineId: machine.body.id };
}

async function runEnded(user: User, id: string): Promise<Json> {
  let last: Json = {};
  await vi.waitFor(
    async () => {
      last = (await get(user, `/v2/runs/${id}`)).body;
      assert.ok(['completed', 'failed', 'cancelled'].includes(last.status), JSON.stringify(last));
    },
    { timeout: 20_000, interval: 50 },
  );
  return last;
}

async function pendingInteraction(user: User, runId: string): Promise<Json> {
  return vi.waitFor(
    async () => {
      const page = (await get(user, `/v2/interactions?run_id=${runId}&status=pending`)).body;
      assert.ok(page.data?.[0], JSON.stringify(page));
      return page.data[0] as Json;
    },
    { timeout: 20_000, interval: 100 },
  );
}

async function completedRun(user: User, ids: { harnessId: string; machineId: string }): Promise<Json> {
  const created = await post(user, '/v2/runs', { harness_id: ids.harnessId, machine_id: ids.machineId, input: 'some words to echo back' });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return runEnded(user, created.body.id);
}

describe('money', () => {
  test('a plan account: GET /v2/usage in plan mode; a full window answers 429 with the quota document and Retry-After', async () => {
    const user = await signedUpUser(stack);
    const ids = await setup(user);
    const fresh = await get(user, '/v2/usage');
    assert.equal(fresh.status, 200);
    assert.equal(fresh.body.mode, 'plan');
    assert.deepEqual(
      fresh.body.windows.map((w: Json) => [w.kind, w.status, w.used_percent, w.window_seconds]),
      [
        ['5h', 'allowed', 0, 18000],
        ['week', 'allowed', 0, 604800],
      ],
    );
    assert.equal(fresh.body.error, undefined);
    assert.deepEqual(fresh.body.extra, { enabled: false, spent_micro_usd_this_cycle: 0, wallet_micro_usd: 10_000_000 });

    // A 5-hour allowance of 1 microdollar: the first run is funded (nothing used yet) and fills it.
    await admin()['account:set-limits']({ 'account-id': user.accountId, 'five-hour-usd': '0.000001' });
    const first = await completedRun(user, ids);
    assert.equal(first.status, 'completed');

    const usage = (await get(user, '/v2/usage')).body;
    assert.equal(usage.mode, 'blocked');
    const [fiveHour, week] = usage.windows;
    assert.equal(fiveHour.status, 'limited');
    assert.equal(fiveHour.used_percent, 100);
    assert.ok(fiveHour.resets_in_seconds > 17_000 && fiveHour.resets_in_seconds <= 18_000);
    assert.ok(Date.parse(fiveHour.resets_at) > Date.now());
    assert.equal(week.status, 'allowed');
    assert.ok(week.used_percent >= 0 && week.used_percent < 100);
    assert.equal(usage.error, 'usage_window_exceeded');

    for (const [path, body] of [
      ['/v2/runs', { harness_id: ids.harnessId, machine_id: ids.machineId, input: 'x' }],
      ['/v1/workflow-requests/run', { workflow_version_id: randomUUID(), entry_node_ids: [randomUUID()] }],
      [
        '/v2/evaluations',
        { name: 'e', harness_id: ids.harnessId, machine_id: ids.machineId, cases: [{ id: 'c', input: 'x' }], attempts_per_case: 1, run: true },
      ],
    ] as const) {
      const refused = await post(user, path, body);
      assert.equal(refused.status, 429, JSON.stringify(refused.body));
      assert.equal(refused.body.code, 'usage_window_exceeded');
      assert.equal(refused.body.error, 'usage_window_exceeded');
      assert.equal(refused.body.mode, 'blocked');
      assert.equal(refused.body.windows.length, 2);
      assert.deepEqual(refused.body.extra, usage.extra);
      assert.equal(refused.headers.get('retry-after'), String(refused.body.retry_after_seconds));
      assert.ok(refused.body.retry_after_seconds > 17_000);
    }

    // An evaluation the caller runs itself starts no work: it is not refused.
    const byHand = await post(user, '/v2/evaluations', {
      name: 'e',
      harness_id: ids.harnessId,
      machine_id: ids.machineId,
      cases: [{ id: 'c', input: 'x' }],
      attempts_per_case: 1,
    });
    assert.equal(byHand.status, 201, JSON.stringify(byHand.body));

    // The day's activity carries the run and its cost.
    const today = (await get(user, '/v1/activity/daily?days=1')).body.data[0];
    assert.equal(today.run_count, 1);
    assert.ok(today.total_cost > 0);
  });

  test('a windows read that fails (DynamoDB answering 500 to it) shows both windows unknown, without numbers, and refuses nothing', async () => {
    // Prepare: the real client, through a proxy in front of DynamoDB Local that fails every GetItem of this account's windows item.
    const user = await signedUpUser(stack);
    const windowsKey = JSON.stringify(keys.usageWindows(user.accountId).sk);
    const proxy = await startFaultProxy(
      stack.dynamodbEndpoint,
      (operation, body) => operation === 'GetItem' && body.includes(user.accountId) && body.includes(windowsKey),
    );
    try {
      const faulty = usageMeter({
        db: createDynamoDb(readEnv({ ...process.env, DYNAMODB_ENDPOINT: proxy.url, TABLE_NAME: stack.tableName })),
        tableName: stack.tableName,
      });
      // Act
      const document = await faulty.document(user.accountId);
      await faulty.admit(user.accountId);
      // Assert
      assert.ok(proxy.failed > 0, 'the windows read went through the proxy and failed');
      assert.deepEqual(document.windows, [
        { kind: '5h', status: 'unknown' },
        { kind: 'week', status: 'unknown' },
      ]);
      assert.equal(document.mode, 'plan');
      assert.equal(document.extra.wallet_micro_usd, 10_000_000);
    } finally {
      await proxy.stop();
    }
  });

  test('extra usage pays past a full window: one debit per run naming it; below the minimum balance, 403 insufficient_balance', async () => {
    const user = await signedUpUser(stack, { balanceUsd: 3 });
    const ids = await setup(user);
    await admin()['account:set-limits']({ 'account-id': user.accountId, 'five-hour-usd': '0.000001' });
    await admin()['account:extra-usage']({ 'account-id': user.accountId, on: true });
    await completedRun(user, ids); // plan funded: fills the window
    assert.equal((await get(user, '/v2/usage')).body.mode, 'extra');
    const paid = await completedRun(user, ids); // extra funded
    assert.equal(paid.status, 'completed');

    let debits: Json[] = [];
    await vi.waitFor(
      async () => {
        debits = (await get(user, '/v1/billing/transactions')).body.transactions.filter((t: Json) => t.type === 'debit');
        assert.equal(debits.length, 1, JSON.stringify(debits));
      },
      { timeout: 10_000, interval: 100 },
    );
    assert.equal(debits[0]!.metadata.run_id, paid.id);
    assert.ok(debits[0]!.amount > 0);
    const usage = (await get(user, '/v2/usage')).body;
    assert.equal(usage.extra.spent_micro_usd_this_cycle, debits[0]!.amount);
    assert.equal(usage.extra.wallet_micro_usd, 3_000_000 - debits[0]!.amount);

    // A wallet of exactly 2.00 USD (the least that mints a token): an extra-funded run takes it below the minimum.
    const poor = await signedUpUser(stack, { balanceUsd: 2 });
    const poorIds = await setup(poor);
    await admin()['account:set-limits']({ 'account-id': poor.accountId, 'five-hour-usd': '0.000001' });
    await admin()['account:extra-usage']({ 'account-id': poor.accountId, on: true });
    await completedRun(poor, poorIds);
    await completedRun(poor, poorIds);
    await vi.waitFor(async () => assert.ok((await get(poor, '/v2/usage')).body.extra.wallet_micro_usd < 2_000_000), { timeout: 10_000, interval: 100 });
    const refused = await post(poor, '/v2/runs', { harness_id: poorIds.harnessId, machine_id: poorIds.machineId, input: 'x' });
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
    assert.equal(refused.body.code, 'insufficient_balance');
  });

  test('a window that fills during a workflow request fails its next node with usage_window_exceeded; what ran stays', async () => {
    // Prepare: 100 microdollars of 5-hour allowance: room at creation, full after one agent node (the fee alone is 100).
    const user = await signedUpUser(stack);
    const api = apiFor(
      () => stack.url,
      () => user.token,
    );
    await admin()['account:set-limits']({ 'account-id': user.accountId, 'five-hour-usd': '0.0001' });
    const [first, second] = [node('first', 'agent', { model: 'local/echo' }), node('second', 'agent', { model: 'local/echo' })];
    const v = await createVersion(api, [first, second], [{ from: first.id, to: second.id }]);
    // Act
    const id = await runVersion(api, v, { text: 'hello there' });
    const tree = await settledTree(api, id);
    // Assert
    const [ran, refused] = [first, second].map((n) => tree.node_executions.find((e) => e.node_id === n.id) as Json) as [Json, Json];
    assert.equal(ran.status, 'completed');
    assert.ok(ran.usage.cost_micro_usd > 100 && ran.usage.input_tokens > 0, JSON.stringify(ran.usage));
    assert.equal(refused.status, 'failed');
    assert.equal(refused.error.code, 'usage_window_exceeded');
    assert.equal(refused.usage, null, 'a node refused for its funding did not execute: it costs nothing');
    assert.equal(tree.workflow_request.status, 'failed');
    assert.equal(tree.workflow_request.error?.code, 'usage_window_exceeded');
    const request = (await get(user, `/v1/workflow-requests/${id}`)).body;
    assert.deepEqual(request.usage, { input_tokens: ran.usage.input_tokens, output_tokens: ran.usage.output_tokens, cost_micro_usd: ran.usage.cost_micro_usd });
    const usage = (await get(user, '/v2/usage')).body;
    assert.equal(usage.mode, 'blocked');
    assert.equal(usage.windows[0].used_percent, 100);
    const again = await post(user, '/v1/workflow-requests/run', { workflow_version_id: v.id, entry_node_ids: v.entry_node_ids });
    assert.equal(again.status, 429);
    assert.equal(again.headers.get('retry-after'), String(again.body.retry_after_seconds));
  });

  test('a node’s flat fee counts from the moment it settles: with one fee of 5-hour allowance, the second node fails usage_window_exceeded, inline and through the queue; with room, both run', async () => {
    // Prepare: 100 microdollars of 5-hour allowance, one flat fee. Transforms call no model: their fees reach the windows
    // only with the request's end, so only the fees the request's nodes settled so far can fill the window before it.
    const chain = (retry?: Record<string, unknown>) => {
      const [first, second] = [transform('first', '{"n": 1}'), transform('second', '{"n": 2}')].map((n) => (retry ? { ...n, retry } : n)) as [
        TestNode,
        TestNode,
      ];
      return { first, second, edges: [{ from: first.id, to: second.id }] };
    };
    for (const [path, retry] of [
      // Inline: both in one worker invocation, the second checked right after the first settled (the check's windows read reused).
      ['inline', undefined],
      // Through the queue: a retry policy makes each a claimed node of its own invocation.
      ['queued', { max_attempts: 2 }],
    ] as const) {
      const user = await signedUpUser(stack);
      const api = apiFor(
        () => stack.url,
        () => user.token,
      );
      await admin()['account:set-limits']({ 'account-id': user.accountId, 'five-hour-usd': '0.0001' });
      const { first, second, edges } = chain(retry);
      const v = await createVersion(api, [first, second], edges);
      // Act
      const tree = await settledTree(api, await runVersion(api, v, {}));
      // Assert
      const [ran, refused] = [first, second].map((n) => tree.node_executions.find((e) => e.node_id === n.id) as Json) as [Json, Json];
      assert.equal(ran.status, 'completed', path);
      assert.equal(ran.usage.cost_micro_usd, 100, path);
      assert.equal(refused.status, 'failed', `${path}: ${JSON.stringify(refused)}`);
      assert.equal(refused.error.code, 'usage_window_exceeded', path);
      assert.equal(refused.usage, null, `${path}: a node refused for its funding did not execute: it costs nothing`);
      assert.equal(tree.workflow_request.status, 'failed', path);
      assert.equal(tree.workflow_request.error?.code, 'usage_window_exceeded', path);
      const usage = (await get(user, '/v2/usage')).body;
      assert.equal(usage.mode, 'blocked', `${path}: the end recorded the one fee`);
      assert.equal(usage.windows[0].used_percent, 100, path);

      // The same request on an account with room (the plan's allowance) runs both nodes.
      const roomy = await signedUpUser(stack);
      const roomyApi = apiFor(
        () => stack.url,
        () => roomy.token,
      );
      const both = chain(retry);
      const roomyTree = await settledTree(roomyApi, await runVersion(roomyApi, await createVersion(roomyApi, [both.first, both.second], both.edges), {}));
      assert.equal(roomyTree.workflow_request.status, 'completed', `${path}: ${JSON.stringify(roomyTree)}`);
      assert.deepEqual(
        roomyTree.node_executions.map((e) => e.status),
        ['completed', 'completed'],
        path,
      );
    }
  });

  test('a window that fills during a run fails it at its next model turn with usage_window_exceeded', async () => {
    // Prepare: a run whose first turn asks the user; its cost fills the 1-microdollar window while it waits.
    const user = await signedUpUser(stack);
    const ids = await setup(user, 'local/script');
    await admin()['account:set-limits']({ 'account-id': user.accountId, 'five-hour-usd': '0.000001' });
    const created = await post(user, '/v2/runs', {
      harness_id: ids.harnessId,
      machine_id: ids.machineId,
      input: { steps: [{ tool: 'ask_user', arguments: { question: 'Which colour?' } }, { reply: 'noted' }] },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const interaction = await pendingInteraction(user, created.body.id);
    // Act
    const answered = await post(user, `/v2/interactions/${interaction.id}/respond`, { type: 'answer', text: 'blue' });
    assert.equal(answered.status, 200, JSON.stringify(answered.body));
    const run = await runEnded(user, created.body.id);
    // Assert
    assert.equal(run.status, 'failed');
    assert.deepEqual(run.failure, { code: 'usage_window_exceeded', message: run.failure.message, retryable: false });
    assert.ok(run.usage.cost_micro_usd > 0, 'the first turn is kept and paid for');
  });

  test('extra usage that runs the wallet dry fails the request with out_of_funds; the debit takes what is left', async () => {
    // Prepare: a full window, extra usage on, and a wallet at the minimum that admits a request.
    const user = await signedUpUser(stack, { balanceUsd: 2 });
    const api = apiFor(
      () => stack.url,
      () => user.token,
    );
    await admin()['account:set-limits']({ 'account-id': user.accountId, 'five-hour-usd': '0.000001' });
    await admin()['account:extra-usage']({ 'account-id': user.accountId, on: true });
    const filler = transform('filler', '{}');
    await settledTree(api, await runVersion(api, await createVersion(api, [filler], []), {}));
    assert.equal((await get(user, '/v2/usage')).body.mode, 'extra');
    const [first, gate, second] = [node('first', 'agent', { model: 'local/echo' }), node('gate', 'approval'), node('second', 'agent', { model: 'local/echo' })];
    const v = await createVersion(
      api,
      [first, gate, second],
      [
        { from: first.id, to: gate.id },
        { from: gate.id, to: second.id },
      ],
    );
    const id = await runVersion(api, v, { text: 'some words' });
    const pending = await vi.waitFor(
      async () => {
        const page = (await get(user, `/v2/interactions?status=pending`)).body;
        const found = page.data.find((i: Json) => i.workflow_request_id === id);
        assert.ok(found, JSON.stringify(page));
        return found as Json;
      },
      { timeout: 20_000, interval: 100 },
    );
    // Other spending drains the wallet while the request waits (as another request's debit would): 50 microdollars stay,
    // less than the extra-funded first node the request has not paid yet.
    await stack.table.db.send(
      new UpdateCommand({
        TableName: stack.tableName,
        Key: keys.account(user.accountId),
        UpdateExpression: 'SET balance_micro_usd = :b',
        ExpressionAttributeValues: { ':b': 50 },
      }),
    );
    // Act
    const approved = await post(user, `/v2/interactions/${pending.id}/respond`, { type: 'approval', approved: true });
    assert.equal(approved.status, 200, JSON.stringify(approved.body));
    const tree = await settledTree(api, id);
    // Assert
    const refused = tree.node_executions.find((e) => e.node_id === second.id)!;
    assert.equal(refused.status, 'failed');
    assert.equal(refused.error?.code, 'out_of_funds');
    assert.equal(tree.workflow_request.error?.code, 'out_of_funds');
    const debit = await vi.waitFor(
      async () => {
        const found = (await get(user, '/v1/billing/transactions?types=debit')).body.transactions.find((t: Json) => t.metadata.workflow_request_id === id);
        assert.ok(found);
        return found as Json;
      },
      { timeout: 10_000, interval: 100 },
    );
    assert.equal(debit.amount, 50, 'all that was left (microdollars), never below zero');
    assert.equal((await get(user, '/v2/usage')).body.extra.wallet_micro_usd, 0);
  });

  test('extra usage that runs the wallet dry fails the run with out_of_funds at its next model turn; its debit, written with its end, takes what is left', async () => {
    // Prepare: a full window, extra usage on; the run's first turn asks the user, so it waits having spent from the wallet.
    const user = await signedUpUser(stack, { balanceUsd: 2 });
    const ids = await setup(user, 'local/script');
    await admin()['account:set-limits']({ 'account-id': user.accountId, 'five-hour-usd': '0.000001' });
    await admin()['account:extra-usage']({ 'account-id': user.accountId, on: true });
    const filler = await post(user, '/v2/runs', { harness_id: ids.harnessId, machine_id: ids.machineId, input: { steps: [{ reply: 'filled' }] } });
    assert.equal((await runEnded(user, filler.body.id)).status, 'completed');
    assert.equal((await get(user, '/v2/usage')).body.mode, 'extra');
    const created = await post(user, '/v2/runs', {
      harness_id: ids.harnessId,
      machine_id: ids.machineId,
      input: { steps: [{ tool: 'ask_user', arguments: { question: 'Which colour?' } }, { reply: 'noted' }] },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const interaction = await pendingInteraction(user, created.body.id);
    // Other spending drains the wallet while the run waits (as another run's debit would): 1 microdollar stays,
    // less than the extra-funded first turn the run has not paid yet.
    await stack.table.db.send(
      new UpdateCommand({
        TableName: stack.tableName,
        Key: keys.account(user.accountId),
        UpdateExpression: 'SET balance_micro_usd = :b',
        ExpressionAttributeValues: { ':b': 1 },
      }),
    );
    // Act
    const answered = await post(user, `/v2/interactions/${interaction.id}/respond`, { type: 'answer', text: 'blue' });
    assert.equal(answered.status, 200, JSON.stringify(answered.body));
    const run = await runEnded(user, created.body.id);
    // Assert: the debit is there as soon as the run has ended (the same transaction), not later.
    assert.equal(run.status, 'failed');
    assert.deepEqual(run.failure, { code: 'out_of_funds', message: run.failure.message, retryable: false });
    const debits = (await get(user, '/v1/billing/transactions?types=debit')).body.transactions.filter((t: Json) => t.metadata.run_id === run.id);
    assert.equal(debits.length, 1, JSON.stringify(debits));
    assert.equal(debits[0]!.amount, 1, 'all that was left (microdollars), never below zero');
    assert.ok(debits[0]!.metadata.shortfall_micro_usd > 0, JSON.stringify(debits[0]));
    assert.equal((await get(user, '/v2/usage')).body.extra.wallet_micro_usd, 0);
  });
});
