import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, test, vi } from 'vitest';
import { bearer, signedUpUser, startTestStack } from '../helpers/stack.js';
import { apiFor, createVersion, node, type TestNode } from '../helpers/workflows.js';

let stack: Awaited<ReturnType<typeof startTestStack>>;
let user: Awaited<ReturnType<typeof signedUpUser>>;

beforeAll(async () => {
  stack = await startTestStack();
  user = await signedUpUser(stack);
});
afterAll(async () => {
  await stack.stop();
});

const api = apiFor(
  () => stack.url,
  () => user.token,
);
const respond = (id: string, body: unknown, key = randomUUID()) => api('POST', `/v2/interactions/${id}/respond`, body, { 'Idempotency-Key': key });
const version = (nodes: TestNode[], edges: Array<{ from: string; to: string; when?: string }>) => createVersion(api, nodes, edges);

function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  return vi.waitFor(
    async () => {
      const value = await probe();
      if (value === undefined) throw new Error('timed out');
      return value;
    },
    { timeout: timeoutMs, interval: 100 },
  );
}

const tree = async (id: string) => (await api('GET', `/v1/workflow-requests/${id}/tree`)).body;
const whenStatus = (id: string, statuses: string[]) =>
  waitFor(async () => {
    const t = await tree(id);
    return statuses.includes(t.workflow_request.status) ? t : undefined;
  });

async function pendingInteraction(requestId: string) {
  return waitFor(async () => {
    const list = await api('GET', `/v2/interactions?workflow_request_id=${requestId}&status=pending`);
    return list.body.data[0] as { id: string; type: string; status: string; prompt: string } | undefined;
  });
}

describe('approval nodes and interactions', () => {
  test('an approval holds the request in waiting until answered; approving resumes it', async () => {
    const gate = node('gate', 'approval', { prompt: 'Ship it?' });
    const after = node('after', 'transform', { expression: '"shipped"' });
    const v = await version([gate, after], [{ from: gate.id, to: after.id }]);
    const id = (await api('POST', '/v1/workflow-requests/run', { workflow_version_id: v.id, entry_node_ids: v.entry_node_ids })).body.workflow_request_id;
    const waiting = await whenStatus(id, ['waiting']);
    assert.equal(waiting.node_executions.find((n: { node_id: string }) => n.node_id === gate.id).status, 'waiting');
    const interaction = await pendingInteraction(id);
    assert.equal(interaction.type, 'approval');
    assert.equal(interaction.prompt, 'Ship it?');
    const got = await api('GET', `/v2/interactions/${interaction.id}`);
    assert.equal(got.body.workflow_request_id, id);

    const wrongType = await respond(interaction.id, { type: 'answer', text: 'yes' });
    assert.equal(wrongType.status, 422);
    assert.equal(wrongType.body.code, 'interaction_type_mismatch');
    const noKey = await api('POST', `/v2/interactions/${interaction.id}/respond`, { type: 'approval', approved: true });
    assert.equal(noKey.body.code, 'idempotency_key_required');

    const key = randomUUID();
    const answered = await respond(interaction.id, { type: 'approval', approved: true }, key);
    assert.equal(answered.status, 200);
    assert.equal(answered.body.status, 'answered');
    assert.deepEqual(answered.body.response, { approved: true });
    const replay = await respond(interaction.id, { type: 'approval', approved: true }, key);
    assert.deepEqual(replay.body, answered.body);
    const second = await respond(interaction.id, { type: 'approval', approved: false });
    assert.equal(second.status, 409);
    assert.equal(second.body.code, 'interaction_not_pending');

    const done = await whenStatus(id, ['completed', 'failed']);
    assert.equal(done.workflow_request.status, 'completed');
    assert.equal(done.node_executions.find((n: { node_id: string }) => n.node_id === after.id).output_data, 'shipped');
  });

  test('a rejected approval fails its node and the request', async () => {
    const gate = node('gate', 'approval');
    const v = await version([gate, node('after', 'transform', { expression: '1' })], []);
    const id = (await api('POST', '/v1/workflow-requests/run', { workflow_version_id: v.id, entry_node_ids: [gate.id] })).body.workflow_request_id;
    const interaction = await pendingInteraction(id);
    await respond(interaction.id, { type: 'approval', approved: false });
    const done = await whenStatus(id, ['completed', 'failed']);
    assert.equal(done.workflow_request.status, 'failed');
    assert.equal(done.workflow_request.error.code, 'approval_rejected');
  });

  test('stopping a waiting request cancels its interaction; other accounts see nothing', async () => {
    const gate = node('gate', 'approval');
    const v = await version([gate], []);
    const id = (await api('POST', '/v1/workflow-requests/run', { workflow_version_id: v.id, entry_node_ids: [gate.id] })).body.workflow_request_id;
    const interaction = await pendingInteraction(id);
    const other = await signedUpUser(stack);
    const foreign = await fetch(`${stack.url}/v2/interactions/${interaction.id}`, { headers: bearer(other.token) });
    assert.equal(foreign.status, 404);
    await api('POST', `/v1/workflow-requests/${id}/stop`);
    const cancelled = await api('GET', `/v2/interactions/${interaction.id}`);
    assert.equal(cancelled.body.status, 'cancelled');
    assert.equal((await respond(interaction.id, { type: 'approval', approved: true })).body.code, 'interaction_not_pending');
  });
});

describe('workflow nodes (child requests)', () => {
  test('the issue scenario: agent, condition, approval and a child workflow run to completed', async () => {
    const childDouble = node('double', 'transform', { expression: '{ "doubled": n * 2 }' });
    const child = await version([childDouble], []);
    const agent = node('agent', 'agent', { model: 'local/echo', system_prompt: 'Repeat.' });
    const check = node('check', 'condition');
    const gate = node('gate', 'approval', { prompt: 'Run the child?' });
    const skipped = node('skipped', 'transform', { expression: '"never"' });
    const prepare = node('prepare', 'transform', { expression: '{ "n": 21 }' });
    const sub = node('sub', 'workflow', { workflow_version_id: child.id });
    const parent = await version(
      [agent, check, gate, skipped, prepare, sub],
      [
        { from: agent.id, to: check.id },
        { from: check.id, to: gate.id, when: `\`${agent.id}\`.content = "go"` },
        { from: check.id, to: skipped.id, when: `\`${agent.id}\`.content != "go"` },
        { from: gate.id, to: prepare.id },
        { from: prepare.id, to: sub.id },
      ],
    );
    const chat = await api('POST', '/v1/chats', { title: 'scenario' });
    const id = (
      await api('POST', '/v1/workflow-requests/run', { workflow_version_id: parent.id, entry_node_ids: [agent.id], chat_id: chat.body.id, query: 'go' })
    ).body.workflow_request_id;
    const interaction = await pendingInteraction(id);
    await respond(interaction.id, { type: 'approval', approved: true });
    const done = await whenStatus(id, ['completed', 'failed', 'stopped']);
    assert.equal(done.workflow_request.status, 'completed', JSON.stringify(done));
    const byId = (nid: string) => done.node_executions.find((n: { node_id: string }) => n.node_id === nid);
    assert.equal(byId(agent.id).output_data.content, 'go');
    assert.equal(byId(skipped.id).status, 'skipped');
    assert.equal(done.children.length, 1);
    const childTree = done.children[0];
    assert.equal(childTree.workflow_request.parent_node_execution_id, byId(sub.id).id);
    assert.equal(childTree.workflow_request.parent_workflow_request_id, id);
    assert.equal(childTree.workflow_request.status, 'completed');
    assert.deepEqual(byId(sub.id).output_data, { workflow_request_id: childTree.workflow_request.id, outputs: { [childDouble.id]: { doubled: 42 } } });
    const memory = await api('GET', `/v1/chat-memory/${agent.id}?chat_id=${chat.body.id}`);
    assert.deepEqual(
      memory.body.messages.map((m: { content: string }) => m.content),
      ['go', 'go'],
    );
  });

  test('stopping a parent stops its running child', async () => {
    const gate = node('gate', 'approval');
    const child = await version([gate], []);
    const sub = node('sub', 'workflow', { workflow_version_id: child.id });
    const parent = await version([sub], []);
    const id = (await api('POST', '/v1/workflow-requests/run', { workflow_version_id: parent.id, entry_node_ids: [sub.id] })).body.workflow_request_id;
    const running = await waitFor(async () => {
      const t = await tree(id);
      return t.children.length > 0 && t.children[0].workflow_request.status === 'waiting' ? t : undefined;
    });
    await api('POST', `/v1/workflow-requests/${id}/stop`);
    const childId = running.children[0].workflow_request.id;
    const stoppedChild = (await api('GET', `/v1/workflow-requests/${childId}`)).body;
    assert.equal(stoppedChild.status, 'stopped');
    assert.equal((await api('GET', `/v1/workflow-requests/${id}`)).body.status, 'stopped');
  });

  test('a child that fails fails its workflow node and the parent', async () => {
    const child = await version([node('bad', 'transform', { expression: '$error("child broke")' })], []);
    const sub = node('sub', 'workflow', { workflow_version_id: child.id });
    const parent = await version([sub], []);
    const id = (await api('POST', '/v1/workflow-requests/run', { workflow_version_id: parent.id, entry_node_ids: [sub.id] })).body.workflow_request_id;
    const done = await whenStatus(id, ['completed', 'failed']);
    assert.equal(done.workflow_request.status, 'failed');
    assert.equal(done.workflow_request.error.code, 'child_workflow_failed');
  });
});
