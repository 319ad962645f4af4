import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, inject, test, vi } from 'vitest';
import type { Denial } from '#local/synth/caller-access.js';
import { type DeployedStack, startDeployedStack } from '#local/synth/deployed-stack.js';
import { createDynamoDb } from '#platform/aws/clients.js';
import { readEnv } from '#platform/config/env.js';
import { type Json, jsonCaller } from '../helpers/api.js';
import { startMcpServer, type TestMcpServer } from '../helpers/mcp-server.js';
import { newMachine, runWhen } from '../helpers/runs.js';
import { signedUpUser } from '../helpers/stack.js';
import { Receiver, verified } from '../helpers/webhook-receiver.js';
import { copyAssemblyWithout } from './assembly-copy.js';

/**
 * The smoke suite against `npm run start:synth`: the real app's cloud
 * assembly (test/infra/global-setup.ts), every route, stream and worker
 * running its bundle under its role. A call a role does not allow is
 * recorded and fails the test that made it, naming the function, the action
 * and the resource.
 */
const assemblyDir = inject('assemblyDir');

interface Running {
  stack: DeployedStack;
  denials: Denial[];
  user: Awaited<ReturnType<typeof signedUpUser>>;
  call: ReturnType<typeof jsonCaller>;
}

async function start(dir: string): Promise<Running> {
  const denials: Denial[] = [];
  const stack = await startDeployedStack({
    assemblyDir: dir,
    port: 0,
    onLog: (line) => (/Uncaught Exception|Task timed out/.test(line) ? process.stderr.write(`${line.slice(0, 600)}\n`) : undefined),
    onDenied: (d) => denials.push(d),
  });
  const env = readEnv({ ...process.env, DYNAMODB_ENDPOINT: stack.dynamodbEndpoint, TABLE_NAME: stack.tableName, AWS_ACCESS_KEY_ID: 'local' });
  const user = await signedUpUser({ url: stack.url, table: { db: createDynamoDb(env), tableName: stack.tableName } });
  return { stack, denials, user, call: jsonCaller(() => stack.url) };
}

/** Fails naming every refused call, as `npm run start:synth` logs them. */
function assertNoDenials(denials: readonly Denial[]): void {
  assert.equal(denials.length, 0, denials.map((d) => `AccessDenied: ${d.functionName} may not ${d.action} on ${d.resource}`).join('\n'));
}

/** An SSE stream read to its end (the service closes it after the terminal event): the JSON of each data line. */
async function sse(url: string, token: string): Promise<Json[]> {
  const response = await fetch(url, { headers: { Authorization: `Bearer ${token}`, Accept: 'text/event-stream' }, signal: AbortSignal.timeout(30_000) });
  assert.equal(response.status, 200, await response.clone().text());
  assert.match(response.headers.get('content-type') ?? '', /text\/event-stream/);
  return (await response.text())
    .split('\n')
    .filter((line) => line.startsWith('data: {'))
    .map((line) => JSON.parse(line.slice(6)) as Json);
}

async function workflowRequestToItsEnd({ stack, user, call }: Running): Promise<Json[]> {
  const post = (path: string, body: unknown) => call('POST', path, user.token, body);
  const workflow = await post('/v1/workflows', { name: `smoke ${randomUUID().slice(0, 6)}` });
  assert.equal(workflow.status, 201, JSON.stringify(workflow.body));
  const definition = { nodes: [{ name: 'double', type: 'transform', config: { expression: '{"n": 2 * 21}' } }], edges: [] };
  const version = await post(`/v1/workflows/${workflow.body.id}/versions`, { definition });
  assert.equal(version.status, 201, JSON.stringify(version.body));
  const run = await post('/v1/workflow-requests/run', { workflow_version_id: version.body.id, entry_node_ids: version.body.entry_node_ids });
  assert.equal(run.status, 202, JSON.stringify(run.body));
  return sse(`${stack.url}/v1/workflow-requests/${run.body.workflow_request_id}/listen`, user.token);
}

describe('npm run start:synth: the synthesized app, every function its bundle under its role', () => {
  let running: Running;
  let mcp: TestMcpServer;
  const receiver = new Receiver();
  beforeAll(async () => {
    [running, mcp] = await Promise.all([start(assemblyDir), startMcpServer(), receiver.start()]);
  });
  afterAll(async () => {
    mcp.slow.release();
    await Promise.all([running?.stack.stop(), mcp?.stop(), receiver.stop()]);
  });
  const post = (path: string, body: unknown) => running.call('POST', path, running.user.token, body, { 'Idempotency-Key': randomUUID() });
  const get = (path: string) => running.call('GET', path, running.user.token);

  test('the console, the reference page and their assets are served from the bundles, compressed', async () => {
    for (const path of ['/', '/docs']) {
      const page = await fetch(`${running.stack.url}${path}`, { headers: { 'Accept-Encoding': 'br' } });
      assert.equal(page.status, 200, path);
      assert.equal(page.headers.get('content-encoding'), 'br', path);
      assert.ok(page.headers.get('content-security-policy')?.includes("script-src 'self'"), path);
      const html = await page.text();
      for (const [, asset] of html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)) {
        const response = await fetch(`${running.stack.url}${asset}`);
        assert.equal(response.status, 200, asset);
      }
    }
    assertNoDenials(running.denials);
  });

  test('a workflow request runs to its end on the workers, and its live stream shows it', async () => {
    const frames = await workflowRequestToItsEnd(running);
    const request = frames.filter((f) => f.workflow_request).map((f) => f.workflow_request.status);
    assert.deepEqual(request.at(-1), 'completed', JSON.stringify(frames));
    assert.deepEqual(frames.find((f) => f.node_execution?.status === 'completed')?.node_execution.output_data, { n: 42 });
    assertNoDenials(running.denials);
  });

  test('a run with an approval-gated MCP tool, approved, completes; its events stream by SSE', async () => {
    const files = [
      {
        path: 'harness.json',
        content: JSON.stringify({
          model: 'local/script',
          instructions: 'prompt.md',
          mcp_servers: [{ name: 'srv', url: mcp.url('/json') }],
          tools: [{ name: 'srv__echo', require_approval: true }],
        }),
      },
      { path: 'prompt.md', content: 'You are a smoke test.' },
    ];
    const harness = await post('/v2/harnesses', { name: `h ${randomUUID().slice(0, 6)}`, files });
    assert.equal(harness.status, 201, JSON.stringify(harness.body));
    const machineId = await newMachine(running.call, running.user.token);
    const created = await post('/v2/runs', {
      harness_id: harness.body.id,
      machine_id: machineId,
      input: { steps: [{ tool: 'srv__echo', arguments: { text: 'hi' } }] },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    let approval: Json | undefined;
    await vi.waitFor(
      async () => {
        approval = (await get(`/v2/interactions?run_id=${created.body.id}&status=pending`)).body.data?.[0];
        assert.ok(approval, 'a pending approval');
      },
      { timeout: 20_000, interval: 100 },
    );
    assert.equal(approval!.type, 'approval');
    assert.equal((await post(`/v2/interactions/${approval!.id}/respond`, { type: 'approval', approved: true })).status, 200);
    const done = await runWhen(get, created.body.id, (run) => ['completed', 'failed', 'cancelled'].includes(run.status));
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.equal(done.output, 'echo: hi');
    const events = await sse(`${running.stack.url}/v2/runs/${created.body.id}/events`, running.user.token);
    assert.ok(
      events.some((e) => e.type === 'tool_result'),
      JSON.stringify(events),
    );
    assertNoDenials(running.denials);
  });

  test('a finished run is delivered, signed, to a webhook endpoint; the billing page lists the account’s credit', async () => {
    const endpoint = await post('/v1/webhook-endpoints', { url: `${receiver.url}/smoke`, events: ['run.completed'] });
    assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body));
    const files = [
      { path: 'harness.json', content: JSON.stringify({ model: 'local/echo', instructions: 'prompt.md' }) },
      { path: 'prompt.md', content: 'You echo.' },
    ];
    const harness = await post('/v2/harnesses', { name: `h ${randomUUID().slice(0, 6)}`, files });
    const run = await post('/v2/runs', { harness_id: harness.body.id, machine_id: await newMachine(running.call, running.user.token), input: 'hello' });
    assert.equal(run.status, 201, JSON.stringify(run.body));
    await vi.waitFor(() => assert.equal(receiver.of('smoke').length, 1), { timeout: 30_000, interval: 100 });
    const event = verified(endpoint.body.secret, receiver.of('smoke')[0]!);
    assert.equal(event.type, 'run.completed');
    assert.equal(event.data.id ?? event.data.run?.id, run.body.id, JSON.stringify(event));
    const page = await get('/v1/billing/transactions?page=1&limit=5');
    assert.equal(page.status, 200, JSON.stringify(page.body));
    assert.ok(
      page.body.transactions.some((t: Json) => t.type === 'credit'),
      JSON.stringify(page.body),
    );
    assertNoDenials(running.denials);
  });
});

test('a permission removed from the template fails the smoke suite, naming the function, the action and the resource', async () => {
  // The run route may send to the queues; without sqs:SendMessage its request is never started.
  const broken = copyAssemblyWithout(assemblyDir, { description: 'POST /v1/workflow-requests/run', action: 'sqs:SendMessage' });
  const running = await start(broken.dir);
  try {
    await assert.rejects(workflowRequestToItsEnd(running));
    assert.throws(
      () => assertNoDenials(running.denials),
      /AccessDenied: WorkflowService-Execution-WorkflowRequestsRun may not sqs:SendMessage on arn:aws:sqs:us-east-1:000000000000:WorkflowService-node-tasks/,
    );
  } finally {
    await running.stack.stop();
    broken.remove();
  }
});
