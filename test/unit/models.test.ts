import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BedrockRuntimeClient, ConverseCommand } from '@aws-sdk/client-bedrock-runtime';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, test } from 'vitest';
import { userMessageOf } from '#execution/nodes/agent.js';
import { bedrockProvider } from '#models/bedrock.js';
import { localProvider } from '#models/local.js';
import { parseScript } from '#models/local-script.js';
import { openaiProvider } from '#models/openai.js';
import { resolveModel } from '#models/registry.js';
import { argumentsOf } from '#models/tool-arguments.js';
import type { ChatMessage, ToolSpec } from '#models/types.js';

const script = (steps: unknown[]): string => JSON.stringify({ steps });
const weather: ToolSpec = {
  name: 'get_weather',
  description: 'The weather in a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } } },
};

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

  test('local/script plays a tool call, then a reply, counting words as tokens', async () => {
    const user = script([{ tool: 'get_weather', arguments: { city: 'Paris' } }, { reply: 'It is sunny in Paris.' }]);
    const earlier: ChatMessage[] = [
      { role: 'user', content: 'hello there' },
      { role: 'assistant', content: 'hi' },
    ];
    const first = await localProvider.complete({
      model: 'script',
      system: 'be brief',
      tools: [weather],
      messages: [...earlier, { role: 'user', content: user }],
    });
    // Output: the name and `{"city":"Paris"}`, one word each; input: every message's content, system included,
    // the script being 5 words (its reply has spaces).
    assert.deepEqual(first, {
      content: '',
      tool_calls: [{ id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }],
      usage: { input_tokens: 2 + 2 + 1 + 5, output_tokens: 2 },
    });
    const second = await localProvider.complete({
      model: 'script',
      system: '',
      messages: [
        ...earlier,
        { role: 'user', content: user },
        { role: 'assistant', content: '', tool_calls: first.tool_calls },
        { role: 'tool', call_id: 'call_1', name: 'get_weather', content: 'sunny, 21 C' },
      ],
    });
    assert.deepEqual(second, { content: 'It is sunny in Paris.', usage: { input_tokens: 2 + 1 + 5 + 0 + 3, output_tokens: 5 } });
  });

  test('local/script answers the last tool result when its last step is a call, with ids counted per user turn', async () => {
    const steps = [
      { tool: 'a', arguments: {} },
      { tool: 'b', arguments: { n: 1 } },
    ];
    const user: ChatMessage = { role: 'user', content: script(steps) };
    const afterOne: ChatMessage[] = [
      user,
      { role: 'assistant', content: '', tool_calls: [{ id: 'call_1', name: 'a', arguments: {} }] },
      { role: 'tool', call_id: 'call_1', name: 'a', content: 'first result' },
    ];
    const second = await localProvider.complete({ model: 'script', system: '', messages: afterOne });
    assert.deepEqual(second.tool_calls, [{ id: 'call_2', name: 'b', arguments: { n: 1 } }]);
    // A redelivered worker sees the same messages and asks for the same call.
    assert.deepEqual(await localProvider.complete({ model: 'script', system: '', messages: afterOne }), second);
    const last = await localProvider.complete({
      model: 'script',
      system: '',
      messages: [
        ...afterOne,
        { role: 'assistant', content: '', tool_calls: second.tool_calls },
        { role: 'tool', call_id: 'call_2', name: 'b', content: 'the final result', is_error: true },
      ],
    });
    assert.deepEqual(last, { content: 'the final result', usage: { input_tokens: 1 + 2 + 3, output_tokens: 3 } });
    // A script in a later user turn starts again at call_1, whatever the earlier turns did.
    const again = await localProvider.complete({ model: 'script', system: '', messages: [...afterOne, { role: 'assistant', content: 'done' }, user] });
    assert.equal(again.tool_calls?.[0]?.id, 'call_1');
  });

  test('local/script goes on after an isError result, ends with its reply, and says the reply again if asked past it', async () => {
    const user: ChatMessage = { role: 'user', content: script([{ tool: 'srv__fail', arguments: {} }, { reply: 'went on' }]) };
    const first = await localProvider.complete({ model: 'script', system: '', messages: [user] });
    assert.deepEqual(first.tool_calls, [{ id: 'call_1', name: 'srv__fail', arguments: {} }]);
    const afterError: ChatMessage[] = [
      user,
      { role: 'assistant', content: '', tool_calls: first.tool_calls },
      { role: 'tool', call_id: 'call_1', name: 'srv__fail', content: 'it failed', is_error: true },
    ];
    // The error is an ordinary result: the next step plays, a final answer without tool calls.
    assert.deepEqual(await localProvider.complete({ model: 'script', system: '', messages: afterError }), {
      content: 'went on',
      // Input: the script (two words: its reply has a space) and the error's two words.
      usage: { input_tokens: 2 + 2, output_tokens: 2 },
    });
    const pastTheEnd = await localProvider.complete({
      model: 'script',
      system: '',
      messages: [...afterError, { role: 'assistant', content: 'went on' }, { role: 'tool', call_id: 'x', name: 'y', content: 'late' }],
    });
    assert.equal(pastTheEnd.content, 'went on');
    assert.equal(pastTheEnd.tool_calls, undefined);
  });

  test('local/script echoes input that is not a script, like local/echo', async () => {
    const inputs = [
      'just words',
      '{"steps": []}',
      '{"steps": "x"}',
      '[{"reply": "a"}]',
      script([{ reply: 'fine' }, { say: 'neither' }]),
      script([{ tool: 'a' }]),
      script([{ tool: '', arguments: {} }]),
      script([{ tool: 'a', arguments: [] }]),
      script([{ tool: 'a', arguments: {}, reply: 'both' }]),
      script([{ reply: 3 }]),
      '{"steps": [{"reply": "cut off"}',
    ];
    for (const content of inputs) {
      const messages: ChatMessage[] = [{ role: 'user', content }];
      assert.equal(parseScript(content), undefined, content);
      assert.deepEqual(
        await localProvider.complete({ model: 'script', system: 's', messages }),
        await localProvider.complete({ model: 'echo', system: 's', messages }),
        content,
      );
    }
    assert.deepEqual(parseScript(script([{ reply: 'ok' }])), [{ reply: 'ok' }]);
    await assert.rejects(localProvider.complete({ model: 'toString', system: '', messages: [] }), /no model toString/);
  });

  test('openai/<model>: an answer that is not 2xx, or not JSON, is an error naming the status', async () => {
    const answers = [
      { status: 429, body: '{"error":{"message":"slow down"}}' },
      { status: 200, body: 'not json' },
    ];
    const server = createServer((req, res) => {
      const answer = answers.shift()!;
      req.resume();
      req.on('end', () => res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    process.env.OPENAI_BASE_URL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/`;
    try {
      const request = { model: 'gpt-test', system: '', messages: [{ role: 'user' as const, content: 'hi' }] };
      await assert.rejects(openaiProvider.complete(request), /answered 429: .*slow down/);
      await assert.rejects(openaiProvider.complete(request), /answered 200 with a body that is not JSON/);
    } finally {
      server.close();
      delete process.env.OPENAI_BASE_URL;
    }
  });

  test('openai/<model> sends tools and tool results and reads back the calls asked for', async () => {
    const bodies: Array<Record<string, unknown>> = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', () => {
        bodies.push(JSON.parse(body));
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({
            id: 'chatcmpl-1',
            object: 'chat.completion',
            created: 0,
            model: 'gpt-test',
            choices: [
              {
                index: 0,
                finish_reason: 'tool_calls',
                message: {
                  role: 'assistant',
                  content: null,
                  tool_calls: [
                    { id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
                    { id: 'c2', type: 'custom', custom: { name: 'grammar', input: 'x' } },
                    { id: 'c3', type: 'function', function: { name: 'get_weather', arguments: '{"city":' } },
                  ],
                },
              },
            ],
            usage: { prompt_tokens: 20, completion_tokens: 9, total_tokens: 29 },
          }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    process.env.OPENAI_API_KEY = 'test-key';
    process.env.OPENAI_BASE_URL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    try {
      const result = await openaiProvider.complete({
        model: 'gpt-test',
        system: 'sys',
        tools: [weather, { name: 'now', input_schema: { type: 'object' } }],
        messages: [
          { role: 'user', content: 'weather?' },
          { role: 'assistant', content: '', tool_calls: [{ id: 'c0', name: 'get_weather', arguments: { city: 'Rome' } }] },
          { role: 'tool', call_id: 'c0', name: 'get_weather', content: 'rain', is_error: false },
          { role: 'assistant', content: 'Rain in Rome.' },
        ],
      });
      assert.deepEqual(result, {
        content: '',
        tool_calls: [
          { id: 'c1', name: 'get_weather', arguments: { city: 'Oslo' } },
          { id: 'c3', name: 'get_weather', arguments: { _raw: '{"city":' } },
        ],
        usage: { input_tokens: 20, output_tokens: 9 },
      });
      assert.deepEqual(bodies[0]!.tools, [
        { type: 'function', function: { name: 'get_weather', description: 'The weather in a city', parameters: weather.input_schema } },
        { type: 'function', function: { name: 'now', parameters: { type: 'object' } } },
      ]);
      assert.deepEqual(bodies[0]!.messages, [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'weather?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c0', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } }] },
        { role: 'tool', tool_call_id: 'c0', content: 'rain' },
        { role: 'assistant', content: 'Rain in Rome.' },
      ]);
      // No tools: no `tools` key at all, as some compatible servers refuse an empty list.
      await openaiProvider.complete({ model: 'gpt-test', system: '', tools: [], messages: [{ role: 'user', content: 'hi' }] });
      assert.equal('tools' in bodies[1]!, false);
      assert.deepEqual(bodies[1]!.messages, [{ role: 'user', content: 'hi' }]);
    } finally {
      server.close();
      delete process.env.OPENAI_API_KEY;
      delete process.env.OPENAI_BASE_URL;
    }
  });

  test('OpenAI arguments that are not a JSON object are kept as _raw', () => {
    assert.deepEqual(argumentsOf('{"a":[1]}'), { a: [1] });
    assert.deepEqual(argumentsOf(' '), {});
    assert.deepEqual(argumentsOf('[1]'), { _raw: '[1]' });
    assert.deepEqual(argumentsOf('null'), { _raw: 'null' });
    assert.deepEqual(argumentsOf('not json'), { _raw: 'not json' });
  });

  test('bedrock/<model> sends tools, merges consecutive tool results into one user message and reads toolUse blocks', async () => {
    const mock = mockClient(BedrockRuntimeClient);
    mock.on(ConverseCommand).resolves({
      output: {
        message: {
          role: 'assistant',
          content: [
            { text: 'Checking.' },
            { toolUse: { toolUseId: 't9', name: 'get_weather', input: { city: 'Lima' } } },
            { toolUse: { toolUseId: 't10', name: 'now', input: undefined } },
          ],
        },
      },
      usage: { inputTokens: 30, outputTokens: 7, totalTokens: 37 },
      stopReason: 'tool_use',
      metrics: { latencyMs: 1 },
    });
    try {
      const result = await bedrockProvider.complete({
        model: 'anthropic.claude-x',
        system: '',
        tools: [weather],
        messages: [
          { role: 'user', content: 'weather in two cities?' },
          {
            role: 'assistant',
            content: '',
            tool_calls: [
              { id: 't1', name: 'get_weather', arguments: { city: 'Rome' } },
              { id: 't2', name: 'get_weather', arguments: { city: 'Pisa' } },
            ],
          },
          { role: 'tool', call_id: 't1', name: 'get_weather', content: 'rain' },
          { role: 'tool', call_id: 't2', name: 'get_weather', content: 'no such city', is_error: true },
          { role: 'assistant', content: 'And Lima?', tool_calls: [{ id: 't3', name: 'get_weather', arguments: { city: 'Lima' } }] },
          { role: 'tool', call_id: 't3', name: 'get_weather', content: 'fog' },
        ],
      });
      assert.deepEqual(result, {
        content: 'Checking.',
        tool_calls: [
          { id: 't9', name: 'get_weather', arguments: { city: 'Lima' } },
          { id: 't10', name: 'now', arguments: {} },
        ],
        usage: { input_tokens: 30, output_tokens: 7 },
      });
      const input = mock.commandCalls(ConverseCommand)[0]!.args[0].input;
      assert.equal(input.system, undefined);
      assert.deepEqual(input.toolConfig, {
        tools: [{ toolSpec: { name: 'get_weather', description: 'The weather in a city', inputSchema: { json: weather.input_schema } } }],
      });
      assert.deepEqual(input.messages, [
        { role: 'user', content: [{ text: 'weather in two cities?' }] },
        {
          role: 'assistant',
          content: [
            { toolUse: { toolUseId: 't1', name: 'get_weather', input: { city: 'Rome' } } },
            { toolUse: { toolUseId: 't2', name: 'get_weather', input: { city: 'Pisa' } } },
          ],
        },
        {
          role: 'user',
          content: [
            { toolResult: { toolUseId: 't1', content: [{ text: 'rain' }], status: 'success' } },
            { toolResult: { toolUseId: 't2', content: [{ text: 'no such city' }], status: 'error' } },
          ],
        },
        { role: 'assistant', content: [{ text: 'And Lima?' }, { toolUse: { toolUseId: 't3', name: 'get_weather', input: { city: 'Lima' } } }] },
        { role: 'user', content: [{ toolResult: { toolUseId: 't3', content: [{ text: 'fog' }], status: 'success' } }] },
      ]);
      await bedrockProvider.complete({ model: 'm', system: '', tools: [], messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(mock.commandCalls(ConverseCommand)[1]!.args[0].input.toolConfig, undefined);
    } finally {
      mock.restore();
    }
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
