import assert from 'node:assert/strict';
import { BedrockRuntimeClient, ConverseCommand } from '@aws-sdk/client-bedrock-runtime';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, test } from 'vitest';
import { userMessageOf } from '#execution/nodes/agent.js';
import { bedrockProvider } from '#models/bedrock.js';
import { localProvider } from '#models/local.js';
import { resolveModel } from '#models/registry.js';

describe('model providers', () => {
  test('local/echo echoes the last user message and counts words as tokens', async () => {
    const result = await localProvider.complete({
      model: 'echo',
      system: 'be kind',
      messages: [
        { role: 'user', content: 'one two' },
        { role: 'assistant', content: 'one two' },
        { role: 'user', content: '  three   four five ' },
      ],
    });
    assert.deepEqual(result, { content: '  three   four five ', usage: { input_tokens: 2 + 2 + 2 + 3, output_tokens: 3 } });
    await assert.rejects(localProvider.complete({ model: 'other', system: '', messages: [] }));
  });

  test('bedrock/<model> uses the Converse API with the system prompt and history', async () => {
    const mock = mockClient(BedrockRuntimeClient);
    mock.on(ConverseCommand).resolves({
      output: { message: { role: 'assistant', content: [{ text: 'Hi ' }, { text: 'there' }] } },
      usage: { inputTokens: 12, outputTokens: 2, totalTokens: 14 },
      stopReason: 'end_turn',
      metrics: { latencyMs: 1 },
    });
    const result = await bedrockProvider.complete({ model: 'anthropic.claude-x', system: 'sys', messages: [{ role: 'user', content: 'hello' }] });
    assert.deepEqual(result, { content: 'Hi there', usage: { input_tokens: 12, output_tokens: 2 } });
    const input = mock.commandCalls(ConverseCommand)[0]!.args[0].input;
    assert.equal(input.modelId, 'anthropic.claude-x');
    assert.deepEqual(input.system, [{ text: 'sys' }]);
    assert.deepEqual(input.messages, [{ role: 'user', content: [{ text: 'hello' }] }]);
    mock.restore();
  });

  test('model names resolve by provider prefix', () => {
    assert.equal(resolveModel('local/echo')?.model, 'echo');
    assert.equal(resolveModel('openai/gpt-4o-mini')?.providerName, 'openai');
    assert.equal(resolveModel('bedrock/anthropic.claude-3-haiku')?.model, 'anthropic.claude-3-haiku');
    assert.equal(resolveModel('nope/x'), undefined);
    assert.equal(resolveModel('echo'), undefined);
  });

  test('the user turn comes from query, message, a single text parent, or the input as JSON', () => {
    assert.equal(userMessageOf({ query: 'q', message: 'm' }), 'q');
    assert.equal(userMessageOf({ message: 'm' }), 'm');
    assert.equal(userMessageOf({ 'parent-id': 'text' }), 'text');
    assert.equal(userMessageOf({ 'parent-id': { content: 'from an agent' } }), 'from an agent');
    assert.equal(userMessageOf({ a: 1, b: 2 }), '{"a":1,"b":2}');
  });
});
