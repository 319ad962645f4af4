import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, test, vi } from 'vitest';
import { adminCommands } from '#accounts/admin-commands.js';
import { RATE_WINDOW_MS } from '#platform/config/plans.js';
import { keys } from '#platform/table/keys.js';
import { jsonCaller } from '../helpers/api.js';
import { newMachine, runWhen } from '../helpers/runs.js';
import { bearer, signedUpUser, startTestStack } from '../helpers/stack.js';
import { apiFor, createVersion, node } from '../helpers/workflows.js';

/**
 * Rate limits (decisions.md, Rate limits) through the local gateway on
 * DynamoDB Local: the request rate of every authenticated request, and the
 * ceiling on workflow requests in progress. Limits are changed the way an
 * operator does (the `account:set-limits` command), never by a test-only path.
 */

let stack: Awaited<ReturnType<typeof startTestStack>>;

beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const setLimits = (accountId: string, flags: Record<string, string | boolean>) =>
  adminCommands(stack.table)['account:set-limits']({ 'account-id': accountId, ...flags });

interface Answer {
  status: number;
  /** Milliseconds from the moment the first request was sent to this answer's arrival. */
  at: number;
  retryAfter: string | null;
  body: Record<string, unknown>;
}

async function get(path: string, token: string, since = Date.now()): Promise<Answer> {
  const response = await fetch(`${stack.url}${path}`, { headers: bearer(token) });
  const text = await response.text();
  return { status: response.status, at: Date.now() - since, retryAfter: response.headers.get('retry-after'), body: text ? JSON.parse(text) : {} };
}

/** Asserts a 429 `rate_limited` answer with a Retry-After of whole seconds, at least 1 and at most `max`. */
function assertRateLimited(answer: Answer, max: number, shape: 'problem' | 'message' = 'problem') {
  assert.equal(answer.status, 429, JSON.stringify(answer.body));
  const seconds = Number(answer.retryAfter);
  assert.ok(Number.isInteger(seconds) && seconds >= 1 && seconds <= max, `Retry-After ${answer.retryAfter}`);
  if (shape === 'problem') assert.equal(answer.body.code, 'rate_limited');
  else assert.deepEqual(Object.keys(answer.body), ['message']);
}

describe('request rate', () => {
  test('200 concurrent GETs on a pro account: no more than its burst (40) in a window, the rest 429 rate_limited with Retry-After', async () => {
    const user = await signedUpUser(stack, { plan: 'pro', rps: 'plan' });
    // Let the sign-in's own requests leave the window, so the burst is the whole story.
    await sleep(RATE_WINDOW_MS);
    const start = Date.now();
    const answers = await Promise.all(Array.from({ length: 200 }, () => get('/v2/harnesses', user.token, start)));
    const admitted = answers.filter((a) => a.status === 200);
    const elapsed = Math.max(...answers.map((a) => a.at));
    // An admitted request was let in between `start` and its answer's arrival, so those answered within
    // the first second (or the first window) were all admitted in one window: at most the burst.
    assert.ok(admitted.filter((a) => a.at <= 1000).length <= 40, `${admitted.filter((a) => a.at <= 1000).length} admitted in the first second`);
    assert.ok(admitted.filter((a) => a.at <= RATE_WINDOW_MS).length <= 40);
    // However long the 200 took to be served, no window held more than 40.
    assert.ok(admitted.length <= 40 * Math.ceil(elapsed / RATE_WINDOW_MS), `${admitted.length} admitted in ${elapsed} ms`);
    assert.ok(admitted.length >= 1, 'the burst is let through');
    for (const refused of answers.filter((a) => a.status !== 200)) assertRateLimited(refused, 2);
    assert.ok(answers.length - admitted.length >= 200 - 40 * Math.ceil(elapsed / RATE_WINDOW_MS));

    // Waiting as long as Retry-After says is enough.
    const last = await get('/v2/harnesses', user.token);
    if (last.status === 429) {
      await sleep(Number(last.retryAfter) * 1000);
      assert.equal((await get('/v2/harnesses', user.token)).status, 200);
    }
  });

  test('the token calls answer their own {message} shape, with the same 429 and Retry-After', async () => {
    const user = await signedUpUser(stack, { plan: 'pro', rps: 'plan' });
    await setLimits(user.accountId, { rps: '1' });
    const answers: Answer[] = [];
    for (let i = 0; i < 4; i++) answers.push(await get('/v1/api-tokens', user.token));
    const refused = answers.filter((a) => a.status !== 200);
    assert.ok(refused.length >= 2, 'a burst of 2 in 2 seconds at most');
    for (const answer of refused) assertRateLimited(answer, 2, 'message');
  });

  test('set-limits takes effect on the next call, both ways; --reset returns to the plan’s rate', async () => {
    const user = await signedUpUser(stack, { plan: 'pro', rps: 'plan' });
    const lowered = await setLimits(user.accountId, { rps: '1' });
    assert.deepEqual(lowered.limits, { ...lowered.limits, requests_per_second: 1, burst: 2 });
    const answers: Answer[] = [];
    for (let i = 0; i < 3; i++) answers.push(await get('/v2/harnesses', user.token));
    assert.ok(answers.filter((a) => a.status === 200).length <= 2, 'at most the new burst of 2 within 2 seconds');
    assertRateLimited(answers[2]!, 2);

    await setLimits(user.accountId, { rps: '50' });
    assert.equal((await get('/v2/harnesses', user.token)).status, 200, 'a higher rate admits the very next call');
    const burst = await Promise.all(Array.from({ length: 30 }, () => get('/v2/harnesses', user.token)));
    assert.deepEqual(
      burst.map((a) => a.status),
      burst.map(() => 200),
    );

    const reset = await setLimits(user.accountId, { reset: true });
    assert.deepEqual(reset.overrides, {});
    assert.equal(reset.limits.requests_per_second, 20);
  });

  test('a browser session is a credential too: minting past the rate is 429 in the token calls’ shape', async () => {
    const { accountId, cookie } = await signedUpUser(stack, { plan: 'pro', rps: 'plan' });
    await setLimits(accountId, { rps: '1' });
    const mint = async () => {
      const response = await fetch(`${stack.url}/v1/api-tokens`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Cookie: cookie },
        body: '{}',
      });
      const text = await response.text();
      return { status: response.status, at: 0, retryAfter: response.headers.get('retry-after'), body: JSON.parse(text) };
    };
    const answers: Answer[] = [];
    for (let i = 0; i < 3; i++) answers.push(await mint());
    assertRateLimited(answers[2]!, 2, 'message');
  });
});

// The accounts here keep the test accounts' generous request rate (TEST_ACCOUNT_RPS): these tests are about the ceiling.
describe('workflow requests in progress', () => {
  async function approvalWorkflow(token: string) {
    const api = apiFor(
      () => stack.url,
      () => token,
    );
    const version = await createVersion(api, [node('gate', 'approval', { prompt: 'Go on?' })], []);
    const run = () => api('POST', '/v1/workflow-requests/run', { workflow_version_id: version.id, entry_node_ids: version.entry_node_ids });
    const status = async (id: string) => (await api('GET', `/v1/workflow-requests/${id}`)).body.status as string;
    const waiting = (id: string) =>
      vi.waitFor(
        async () => {
          if ((await status(id)) !== 'waiting') throw new Error(`request ${id} not waiting yet`);
        },
        { timeout: 20_000, interval: 200 },
      );
    return { api, run, status, waiting };
  }

  test('with --concurrency 1, a second request while the first is in progress is 429 rate_limited; once it ends, a new one is accepted', async () => {
    const user = await signedUpUser(stack, { plan: 'pro' });
    const shown = await setLimits(user.accountId, { concurrency: '1' });
    assert.equal(shown.limits.concurrency, 1);
    const { api, run, status, waiting } = await approvalWorkflow(user.token);

    const first = await run();
    assert.equal(first.status, 202, JSON.stringify(first.body));
    const firstId = first.body.workflow_request_id as string;
    await waiting(firstId);

    const second = await run();
    assert.equal(second.status, 429, JSON.stringify(second.body));
    assert.equal(second.body.code, 'rate_limited');
    assert.ok(Number(second.headers.get('retry-after')) >= 1);
    const listed = await api('GET', '/v1/workflow-requests');
    assert.equal(listed.status, 200);

    assert.equal((await api('POST', `/v1/workflow-requests/${firstId}/stop`)).status, 200);
    assert.equal(await status(firstId), 'stopped');
    const third = await run();
    assert.equal(third.status, 202, JSON.stringify(third.body));
    await api('POST', `/v1/workflow-requests/${third.body.workflow_request_id}/stop`);
  });

  test('exact under concurrent creation: 10 requests at once with --concurrency 3 start exactly 3; their ends give the slots back', async () => {
    const user = await signedUpUser(stack, { plan: 'pro' });
    await setLimits(user.accountId, { concurrency: '3' });
    const { api, run } = await approvalWorkflow(user.token);
    const answers = await Promise.all(Array.from({ length: 10 }, () => run()));
    const started = answers.filter((a) => a.status === 202);
    assert.equal(started.length, 3, JSON.stringify(answers.map((a) => a.status)));
    for (const refused of answers.filter((a) => a.status !== 202)) {
      assert.equal(refused.status, 429);
      assert.equal(refused.body.code, 'rate_limited');
    }
    for (const s of started) assert.equal((await api('POST', `/v1/workflow-requests/${s.body.workflow_request_id}/stop`)).status, 200);
    const again = await Promise.all(Array.from({ length: 3 }, () => run()));
    assert.deepEqual(
      again.map((a) => a.status),
      [202, 202, 202],
      'all three slots were released',
    );
    for (const s of again) await api('POST', `/v1/workflow-requests/${s.body.workflow_request_id}/stop`);
  });

  test('a counter set to 0 by hand does not hold back an end: a waiting request and a waiting run both end, and it stays at 0', async () => {
    const user = await signedUpUser(stack, { plan: 'pro' });
    const { api, run, status, waiting } = await approvalWorkflow(user.token);
    const request = await run();
    assert.equal(request.status, 202, JSON.stringify(request.body));
    const requestId = request.body.workflow_request_id as string;
    await waiting(requestId);
    const files = [
      { path: 'harness.json', content: JSON.stringify({ model: 'local/script', instructions: 'prompt.md' }) },
      { path: 'prompt.md', content: 'You ask.' },
    ];
    const call = jsonCaller(() => stack.url);
    const post = (path: string, body: unknown) => call('POST', path, user.token, body, { 'Idempotency-Key': randomUUID() });
    const harness = await post('/v2/harnesses', { name: 'asker', files });
    const machineId = await newMachine(call, user.token);
    const created = await post('/v2/runs', {
      harness_id: harness.body.id,
      machine_id: machineId,
      input: { steps: [{ tool: 'ask_user', arguments: { question: 'go?' } }, { reply: 'done' }] },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    await runWhen(
      (path) => api('GET', path),
      created.body.id,
      (r) => r.status === 'waiting',
    );
    // Prepare: an operator's hand edit leaves the counter at 0 while both hold a slot.
    await stack.table.db.send(
      new UpdateCommand({
        TableName: stack.table.tableName,
        Key: keys.inProgress(user.accountId),
        UpdateExpression: 'SET in_progress = :zero',
        ExpressionAttributeValues: { ':zero': 0 },
      }),
    );
    // Act
    const stopped = await api('POST', `/v1/workflow-requests/${requestId}/stop`);
    const cancelled = await api('POST', `/v2/runs/${created.body.id}/cancel`);
    // Assert
    assert.equal(stopped.status, 200, JSON.stringify(stopped.body));
    assert.equal(await status(requestId), 'stopped');
    assert.equal(cancelled.body.status, 'cancelled', JSON.stringify(cancelled.body));
    const { Item } = await stack.table.db.send(
      new GetCommand({ TableName: stack.table.tableName, Key: keys.inProgress(user.accountId), ConsistentRead: true }),
    );
    assert.equal(Item?.in_progress, 0);
  });
});
