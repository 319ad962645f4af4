import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type Client, createClient, ProblemError, type RunEvent, type WorkflowStreamEvent } from '@workflow-service/client';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { signedUpUser, startTestStack } from '../helpers/stack.js';

// The typed client (clients/typescript) against the service on the local stack.

let stack: Awaited<ReturnType<typeof startTestStack>>;
let user: Awaited<ReturnType<typeof signedUpUser>>;
let api: Client;

beforeAll(async () => {
  stack = await startTestStack();
  user = await signedUpUser(stack);
  api = createClient({ baseUrl: stack.url, token: user.token });
});
afterAll(async () => {
  await stack.stop();
});

const REPOSITORY_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TERMINAL_RUN = ['completed', 'failed', 'cancelled'];

async function collect<T>(events: AsyncIterable<T>, timeoutMs = 30_000): Promise<T[]> {
  const items: T[] = [];
  const timer = setTimeout(() => assert.fail(`the stream did not end within ${timeoutMs} ms: ${JSON.stringify(items)}`), timeoutMs);
  try {
    for await (const item of events) items.push(item);
  } finally {
    clearTimeout(timer);
  }
  return items;
}

/** The error `promise` rejects with. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail('the call did not fail');
}

async function echoHarness(): Promise<string> {
  const files = [
    { path: 'harness.json', content: JSON.stringify({ model: 'local/echo', instructions: 'prompt.md' }) },
    { path: 'prompt.md', content: 'Repeat the message.' },
  ];
  const { data } = await api.POST('/v2/harnesses', { body: { name: `client ${randomUUID().slice(0, 8)}`, files } });
  return data.id;
}

describe('workflows', () => {
  test('a workflow and a version, run: its live stream from the snapshot to the end', async () => {
    const { data: workflow } = await api.POST('/v1/workflows', { body: { name: `client-${randomUUID()}` } });
    const { data: version } = await api.POST('/v1/workflows/{id}/versions', {
      params: { path: { id: workflow.id } },
      body: {
        definition: {
          nodes: [
            { name: 'one', type: 'transform', config: { expression: '{ "n": 1 }' } },
            { name: 'two', type: 'transform', config: { expression: '{ "n": 2 }' } },
          ],
          edges: [{ from: 'one', to: 'two' }],
        },
      },
    });
    assert.equal(version.version, 1);
    const { data: started, response } = await api.POST('/v1/workflow-requests/run', {
      body: { workflow_version_id: version.id, entry_node_ids: version.entry_node_ids, payload: {} },
    });
    assert.equal(response.status, 202);

    const events: WorkflowStreamEvent[] = await collect(api.streamRequestEvents(started.workflow_request_id));
    const last = events.at(-1)!;
    assert.equal(last.data.workflow_request?.status, 'completed', JSON.stringify(events));
    assert.equal(last.data.workflow_request?.id, started.workflow_request_id);
    const [one, two] = version.definition.nodes.map((node) => node.id);
    const outputs = new Map(
      events.flatMap((e) => (e.data.node_execution?.status === 'completed' ? [[e.data.node_execution.node_id, e.data.node_execution.output_data]] : [])),
    );
    assert.deepEqual(outputs.get(one!), { n: 1 });
    assert.deepEqual(outputs.get(two!), { n: 2 });
    for (const event of events) assert.match(event.id, /^\d+$/);

    // Resumed after its last event: a 204, so nothing more.
    assert.deepEqual(await collect(api.streamRequestEvents(started.workflow_request_id, { lastEventId: last.id })), []);
  });
});

describe('runs', () => {
  test('a run on local/echo: its events streamed to the terminal run.status, as the JSON listing has them', async () => {
    const harnessId = await echoHarness();
    const { data: machine } = await api.POST('/v1/machines', { body: { name: 'client test' } });
    // POST /v2/runs requires an Idempotency-Key: the client sends one.
    const { data: run } = await api.POST('/v2/runs', { body: { harness_id: harnessId, machine_id: machine.id, input: 'hello typed client' } });

    const events: RunEvent[] = await collect(api.streamRunEvents(run.id));
    assert.deepEqual(
      events.map((e) => e.seq),
      events.map((_, i) => i + 1),
      'seq 1, 2, 3… without gaps',
    );
    const last = events.at(-1)!;
    assert.equal(last.type, 'run.status');
    assert.ok('status' in last.data && last.data.status === 'completed', JSON.stringify(last));
    const answers = events.filter((e) => e.type === 'message' && 'role' in e.data && e.data.role === 'assistant');
    assert.ok(
      answers.some((e) => 'text' in e.data && e.data.text === 'hello typed client'),
      JSON.stringify(events),
    );

    // JSON (no Accept: text/event-stream), so never the stream's 204.
    const { data: page } = await api.GET('/v2/runs/{id}/events', { params: { path: { id: run.id }, query: { limit: 500 } } });
    assert.deepEqual(page?.data, events);
    const { data: ended } = await api.GET('/v2/runs/{id}', { params: { path: { id: run.id } } });
    assert.ok(TERMINAL_RUN.includes(ended.status));
    assert.equal(ended.output, 'hello typed client');

    // From Last-Event-ID: the events after it.
    const resumed = await collect(api.streamRunEvents(run.id, { lastEventId: events[1]!.id }));
    assert.deepEqual(resumed, events.slice(2));
  });

  test("the caller's Idempotency-Key is sent: the same key replays the first answer", async () => {
    const harnessId = await echoHarness();
    const { data: machine } = await api.POST('/v1/machines', { body: { name: 'client replay' } });
    const key = randomUUID();
    const body = { harness_id: harnessId, machine_id: machine.id, input: 'once' };
    const first = await api.POST('/v2/runs', { params: { header: { 'Idempotency-Key': key } }, body });
    const again = await api.POST('/v2/runs', { params: { header: { 'Idempotency-Key': key } }, body });
    assert.equal(again.data.id, first.data.id);
    assert.equal(again.response.headers.get('Idempotency-Replayed'), 'true');
    await collect(api.streamRunEvents(first.data.id));
  });
});

describe('errors and pages', () => {
  test('a 404 is a ProblemError with its code, detail and request id', async () => {
    const error = await rejection(api.GET('/v2/runs/{id}', { params: { path: { id: 'run_doesnotexist' } } }));
    assert.ok(error instanceof ProblemError, String(error));
    assert.equal(error.status, 404);
    assert.equal(error.code, 'not_found');
    assert.equal(error.title, 'Not Found');
    assert.ok(error.detail);
    assert.ok(error.requestId);
    assert.equal((error.body as { trace_id: string }).trace_id, error.requestId);

    const stream = await rejection(collect(api.streamRunEvents('run_doesnotexist')));
    assert.ok(stream instanceof ProblemError);
    assert.equal(stream.code, 'not_found');
  });

  test('the {message} answer of a token call is a ProblemError too', async () => {
    const error = await rejection(api.POST('/v1/api-tokens/revoke', { body: { token_id: 'tok_unknown' } }));
    assert.ok(error instanceof ProblemError, String(error));
    assert.equal(error.status, 404);
    assert.equal(error.code, 'not_found');
    assert.equal(error.detail, (error.body as { message: string }).message);

    const anonymous = createClient({ baseUrl: stack.url });
    const refused = await rejection(anonymous.GET('/v2/runs'));
    assert.ok(refused instanceof ProblemError);
    assert.equal(refused.code, 'unauthorized');
  });

  test('a list is paged with its cursor', async () => {
    const prefix = `paged-${randomUUID()}`;
    for (const n of [1, 2, 3]) await api.POST('/v1/workflows', { body: { name: `${prefix}-${n}` } });
    const names: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const { data } = await api.GET('/v1/workflows', { params: { query: { search: prefix, limit: 2, ...(cursor ? { cursor } : {}) } } });
      names.push(...data.workflows.map((w) => w.name));
      cursor = data.next_cursor ?? undefined;
      pages += 1;
      assert.equal(data.has_more, cursor !== undefined);
    } while (cursor);
    assert.equal(pages, 2);
    assert.deepEqual(names.sort(), [`${prefix}-1`, `${prefix}-2`, `${prefix}-3`]);
  });
});

test('the README quickstart (clients/typescript/examples/quickstart.ts) runs against the service', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'clients/typescript/examples/quickstart.ts'], {
    cwd: REPOSITORY_ROOT,
    env: { ...process.env, BASE_URL: stack.url, TOKEN: user.token },
    timeout: 60_000,
  });
  const lines = stdout.trim().split('\n');
  assert.match(lines[0]!, /^1 run\.status /, stdout);
  assert.match(lines.at(-2)!, /^\d+ run\.status \{"status":"completed"\}$/, stdout);
  assert.match(lines.at(-1)!, /^run run_\S+ completed: Hello, world$/, stdout);
});
