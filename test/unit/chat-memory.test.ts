import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, test } from 'vitest';
import { type ChatMemoryDeps, chatMemoryPage } from '#memory/chat-memory.js';
import type { MemoryMessage } from '#memory/model.js';
import { CHAT_ID_MAX_LENGTH, MemoryQuery } from '#memory/schemas.js';
import { CursorInvalidError, type DomainError, InvalidParameterError, NotFoundError } from '#platform/errors.js';
import { parseQuery } from '#platform/http/parse.js';
import { STATUS_OF } from '#platform/http/problem.js';

const ACCOUNT = 'acc-1';
const NODE = randomUUID();
const MINE = randomUUID();
const THEIRS = randomUUID();
const KEY = { load: async () => Buffer.alloc(32, 3) };

const message = (n: number): MemoryMessage => ({
  id: `msg_${n}`,
  role: n % 2 ? 'assistant' : 'user',
  content: `m${n}`,
  context_memory_id: MINE,
  agent_node_id: NODE,
  created_at: 't',
});

/** Memory as the repository reads it: only the account's messages, here only in MINE; ownership asked is recorded. */
function fakes(messages: MemoryMessage[]) {
  const asked: string[] = [];
  const deps: ChatMemoryDeps = {
    memory: {
      async page(accountId, contextMemoryId, _node, { limit, after }) {
        const own = accountId === ACCOUNT && contextMemoryId === MINE ? messages : [];
        const start = after ? own.findIndex((m) => `MSG#${m.id}` === after) + 1 : 0;
        const items = own.slice(start, start + limit);
        return { messages: items, nextAfter: start + limit < own.length ? `MSG#${items.at(-1)!.id}` : undefined };
      },
    },
    async ownsContext(accountId, contextMemoryId) {
      asked.push(contextMemoryId);
      return accountId === ACCOUNT && contextMemoryId === MINE;
    },
    serviceKey: KEY,
  };
  return { deps, asked };
}

describe('chat memory page', () => {
  test('another account’s chat (or none) is 404 not_found, not an empty page', async () => {
    const { deps } = fakes([message(0), message(1)]);
    await assert.rejects(chatMemoryPage(deps, ACCOUNT, NODE, { chat_id: THEIRS, limit: 20 }), (e: unknown) => {
      assert.ok(e instanceof NotFoundError);
      assert.equal([STATUS_OF[e.kind], e.code].join(' '), '404 not_found');
      return true;
    });
    await assert.rejects(chatMemoryPage(deps, 'acc-2', NODE, { chat_id: MINE, limit: 20 }), NotFoundError);
  });

  test('the caller’s chat with no messages for the node is an empty page', async () => {
    const { deps, asked } = fakes([]);
    assert.deepEqual(await chatMemoryPage(deps, ACCOUNT, NODE, { chat_id: MINE, limit: 20 }), { messages: [], next_cursor: null, has_more: false, limit: 20 });
    assert.deepEqual(asked, [MINE]);
  });

  test('a page with messages proves the chat is the caller’s: no lookup; its cursor pages on', async () => {
    const { deps, asked } = fakes([0, 1, 2].map(message));
    const first = await chatMemoryPage(deps, ACCOUNT, NODE, { chat_id: MINE, limit: 2 });
    assert.deepEqual(
      first.messages.map((m) => m.id),
      ['msg_0', 'msg_1'],
    );
    assert.equal(first.has_more, true);
    const second = await chatMemoryPage(deps, ACCOUNT, NODE, { chat_id: MINE, limit: 2, cursor: first.next_cursor! });
    assert.deepEqual(
      second.messages.map((m) => m.id),
      ['msg_2'],
    );
    assert.equal(second.next_cursor, null);
    assert.deepEqual(asked, []);
    await assert.rejects(chatMemoryPage(deps, ACCOUNT, NODE, { chat_id: MINE, limit: 2, cursor: 'garbage' }), CursorInvalidError);
  });

  test('a malformed agent node id is 404', async () => {
    await assert.rejects(chatMemoryPage(fakes([]).deps, ACCOUNT, 'not-a-uuid', { chat_id: MINE, limit: 20 }), NotFoundError);
  });
});

describe('chat memory query', () => {
  const event = (query: Record<string, string>) => ({ queryStringParameters: query }) as unknown as APIGatewayProxyEventV2;
  const faultOf = (query: Record<string, string>) => {
    try {
      parseQuery(event(query), MemoryQuery);
    } catch (error) {
      assert.ok(error instanceof InvalidParameterError);
      return (error as DomainError).options.errors?.map(({ name, reason, code }) => ({ name, reason, code }));
    }
    assert.fail('accepted');
  };

  test('a chat_id over its length limit is reported as too long, not as missing', () => {
    assert.deepEqual(faultOf({ chat_id: 'x'.repeat(CHAT_ID_MAX_LENGTH + 1) }), [
      { name: 'chat_id', reason: `must be at most ${CHAT_ID_MAX_LENGTH} characters`, code: 'too_big' },
    ]);
    assert.deepEqual(parseQuery(event({ chat_id: 'x'.repeat(CHAT_ID_MAX_LENGTH) }), MemoryQuery).chat_id.length, CHAT_ID_MAX_LENGTH);
  });

  test('a missing or empty chat_id is required', () => {
    assert.deepEqual(faultOf({}), [{ name: 'chat_id', reason: 'is required', code: 'required' }]);
    assert.deepEqual(faultOf({ chat_id: '' }), [{ name: 'chat_id', reason: 'is required', code: 'too_small' }]);
  });
});
