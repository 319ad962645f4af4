import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { bearer, signedUpUser, startTestStack } from '../helpers/stack.js';
import { apiFor, settledTree } from '../helpers/workflows.js';

let stack: Awaited<ReturnType<typeof startTestStack>>;
let user: Awaited<ReturnType<typeof signedUpUser>>;
let fakeOpenAi: Server;
const openAiCalls: Array<{ model: string; messages: Array<{ role: string; content: string }> }> = [];

beforeAll(async () => {
  stack = await startTestStack();
  user = await signedUpUser(stack);
  // An OpenAI-compatible endpoint on loopback: answers in upper case.
  fakeOpenAi = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const request = JSON.parse(body) as { model: string; messages: Array<{ role: string; content: string }> };
      openAiCalls.push(request);
      const last = request.messages.at(-1)?.content ?? '';
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(
        JSON.stringify({
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: 0,
          model: request.model,
          choices: [{ index: 0, message: { role: 'assistant', content: last.toUpperCase() }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => fakeOpenAi.listen(0, '127.0.0.1', () => resolve()));
});
afterAll(async () => {
  fakeOpenAi.close();
  await stack.stop();
});

const api = apiFor(
  () => stack.url,
  () => user.token,
);

async function agentVersion(model: string, systemPrompt = 'Be brief.') {
  const agentId = randomUUID();
  const workflow = await api('POST', '/v1/workflows', { name: `agent-${randomUUID()}` });
  const version = await api('POST', `/v1/workflows/${workflow.body.id}/versions`, {
    definition: { nodes: [{ id: agentId, name: 'assistant', type: 'agent', config: { model, system_prompt: systemPrompt } }], edges: [] },
  });
  assert.equal(version.status, 201, JSON.stringify(version.body));
  return { versionId: version.body.id as string, agentId, workflowId: workflow.body.id as string };
}

async function runToEnd(body: Record<string, unknown>) {
  const started = await api('POST', '/v1/workflow-requests/run', body);
  assert.equal(started.status, 202, JSON.stringify(started.body));
  // biome-ignore lint/suspicious/noExplicitAny: the tests read agent-specific fields (children, usage) the Tree type leaves out
  return (await settledTree(api, started.body.workflow_request_id)) as any;
}

describe('agent nodes and context memory', () => {
  test('local/echo answers the user message, keeps memory per chat and node, and records token usage', async () => {
    const { versionId, agentId, workflowId } = await agentVersion('local/echo');
    const chat = await api('POST', '/v1/chats', { workflow_id: workflowId, title: 'memory test' });
    assert.equal(chat.status, 201);
    const usages: Array<{ input_tokens: number; output_tokens: number }> = [];
    for (const query of ['hello one', 'hello number two', 'three']) {
      const tree = await runToEnd({ workflow_version_id: versionId, entry_node_ids: [agentId], chat_id: chat.body.id, query });
      assert.equal(tree.workflow_request.status, 'completed');
      const output = tree.node_executions[0].output_data;
      assert.equal(output.content, query);
      assert.equal(output.model, 'local/echo');
      usages.push(output.usage);
    }
    // Every whitespace-separated word is a token; the history grows the input.
    assert.deepEqual(usages[0], { input_tokens: 2 + 2, output_tokens: 2 });
    assert.deepEqual(usages[1], { input_tokens: 2 + 2 + 2 + 3, output_tokens: 3 });
    assert.deepEqual(usages[2], { input_tokens: 2 + 4 + 6 + 1, output_tokens: 1 });

    const seen: Array<{ role: string; content: string; context_memory_id: string; agent_node_id: string }> = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `?chat_id=${chat.body.id}&limit=4${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page = await api('GET', `/v1/chat-memory/${agentId}${query}`);
      assert.equal(page.status, 200, JSON.stringify(page.body));
      assert.equal(page.body.limit, 4);
      seen.push(...page.body.messages);
      cursor = page.body.next_cursor;
      assert.equal(page.body.has_more, cursor !== null);
      pages++;
    } while (cursor);
    assert.equal(pages, 2);
    assert.deepEqual(
      seen.map((m) => [m.role, m.content]),
      [
        ['user', 'hello one'],
        ['assistant', 'hello one'],
        ['user', 'hello number two'],
        ['assistant', 'hello number two'],
        ['user', 'three'],
        ['assistant', 'three'],
      ],
    );
    assert.ok(seen.every((m) => m.context_memory_id === chat.body.id && m.agent_node_id === agentId));

    // Another account's chat is 404, as GET /v1/chats/{id} answers it, whether or not it holds messages for the node.
    const other = await signedUpUser(stack);
    for (const node of [agentId, randomUUID()]) {
      const foreign = await api('GET', `/v1/chat-memory/${node}?chat_id=${chat.body.id}`, undefined, bearer(other.token));
      assert.equal(foreign.status, 404, JSON.stringify(foreign.body));
      assert.equal(foreign.body.code, 'not_found');
      assert.equal((await api('GET', `/v1/chats/${chat.body.id}`, undefined, bearer(other.token))).status, 404);
    }
    // The owner's chat is a page, empty for a node that wrote nothing there.
    const empty = await api('GET', `/v1/chat-memory/${randomUUID()}?chat_id=${chat.body.id}`);
    assert.equal(empty.status, 200, JSON.stringify(empty.body));
    assert.deepEqual(empty.body.messages, []);
  });

  test('a request run without a chat keeps its memory under its own id, the owner’s alone', async () => {
    const { versionId, agentId } = await agentVersion('local/echo');
    const tree = await runToEnd({ workflow_version_id: versionId, entry_node_ids: [agentId], query: 'no chat' });
    const requestId = tree.workflow_request.id as string;
    const own = await api('GET', `/v1/chat-memory/${agentId}?chat_id=${requestId}`);
    assert.equal(own.status, 200, JSON.stringify(own.body));
    assert.deepEqual(
      own.body.messages.map((m: { content: string }) => m.content),
      ['no chat', 'no chat'],
    );
    assert.equal((await api('GET', `/v1/chat-memory/${randomUUID()}?chat_id=${requestId}`)).status, 200);
    const other = await signedUpUser(stack);
    assert.equal((await api('GET', `/v1/chat-memory/${agentId}?chat_id=${requestId}`, undefined, bearer(other.token))).status, 404);
    assert.equal((await api('GET', `/v1/chat-memory/${agentId}?chat_id=${randomUUID()}`)).status, 404);
  });

  test('memory parameters: chat_id required and at most 200 characters, limit 1-100, cursors checked, malformed node id 404', async () => {
    const agentId = randomUUID();
    const tooLong = await api('GET', `/v1/chat-memory/${agentId}?chat_id=${'c'.repeat(201)}`);
    assert.equal(tooLong.status, 400);
    assert.deepEqual(tooLong.body.errors, [{ name: 'chat_id', location: 'query', reason: 'must be at most 200 characters', code: 'too_big' }]);
    const missing = await api('GET', `/v1/chat-memory/${agentId}`);
    assert.deepEqual(missing.body.errors, [{ name: 'chat_id', location: 'query', reason: 'is required', code: 'required' }]);
    const cases: Array<[string, number, string]> = [
      [`/v1/chat-memory/${agentId}`, 400, 'invalid_parameter'],
      [`/v1/chat-memory/${agentId}?chat_id=c&limit=0`, 400, 'invalid_parameter'],
      [`/v1/chat-memory/${agentId}?chat_id=c&limit=101`, 400, 'invalid_parameter'],
      [`/v1/chat-memory/${agentId}?chat_id=c&cursor=abc`, 400, 'cursor_invalid'],
      ['/v1/chat-memory/not-a-uuid?chat_id=c', 404, 'not_found'],
    ];
    for (const [path, status, code] of cases) {
      const response = await api('GET', path);
      assert.equal(response.status, status, path);
      assert.equal(response.body.code, code, path);
    }
  });

  test('openai/<model> calls the configured OpenAI-compatible endpoint; unconfigured it is refused up front', async () => {
    const { versionId, agentId } = await agentVersion('openai/gpt-test', 'You shout.');
    delete process.env.OPENAI_API_KEY;
    const refused = await api('POST', '/v1/workflow-requests/run', { workflow_version_id: versionId, entry_node_ids: [agentId], query: 'hi' });
    assert.equal(refused.status, 422);
    assert.match(refused.body.errors[0].reason, /openai is not configured/);

    process.env.OPENAI_API_KEY = 'test-key';
    process.env.OPENAI_BASE_URL = `http://127.0.0.1:${(fakeOpenAi.address() as AddressInfo).port}/v1`;
    try {
      const tree = await runToEnd({ workflow_version_id: versionId, entry_node_ids: [agentId], query: 'quiet please' });
      assert.equal(tree.workflow_request.status, 'completed');
      assert.deepEqual(tree.node_executions[0].output_data, {
        content: 'QUIET PLEASE',
        model: 'openai/gpt-test',
        usage: { input_tokens: 7, output_tokens: 3 },
      });
      const call = openAiCalls.at(-1)!;
      assert.equal(call.model, 'gpt-test');
      assert.deepEqual(call.messages, [
        { role: 'system', content: 'You shout.' },
        { role: 'user', content: 'quiet please' },
      ]);
      // Without a chat, the request id is the context memory id.
      const memory = await api('GET', `/v1/chat-memory/${agentId}?chat_id=${tree.workflow_request.id}`);
      assert.deepEqual(
        memory.body.messages.map((m: { content: string }) => m.content),
        ['quiet please', 'QUIET PLEASE'],
      );
    } finally {
      delete process.env.OPENAI_API_KEY;
      delete process.env.OPENAI_BASE_URL;
    }
  });
});
