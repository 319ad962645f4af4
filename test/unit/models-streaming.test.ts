import assert from 'node:assert/strict';
import { BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand, type ConverseStreamOutput } from '@aws-sdk/client-bedrock-runtime';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, describe, test } from 'vitest';
import { bedrockProvider } from '#models/bedrock.js';
import type { Completion, CompletionRequest, ToolSpec } from '#models/types.js';

const weather: ToolSpec = { name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } };
const ask = (extra: Partial<CompletionRequest> = {}): Omit<CompletionRequest, 'onText'> => ({
  model: 'm',
  system: 'sys',
  messages: [{ role: 'user', content: 'hi' }],
  ...extra,
});

/** Completes with an `onText` that records its pieces, and checks the invariant: they join into the content. */
async function streamedFrom(complete: (request: CompletionRequest) => Promise<Completion>, request: Omit<CompletionRequest, 'onText'>) {
  const deltas: string[] = [];
  const completion = await complete({ ...request, onText: (delta) => deltas.push(delta) });
  assert.equal(deltas.join(''), completion.content);
  assert.ok(deltas.every((delta) => delta !== ''));
  return { deltas, completion };
}

/** The outcome of a call that is expected to reject: what it rejected with. */
const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => assert.fail('expected a rejection'),
    (error: unknown) => error,
  );

/** A ConverseStream answer: the events given, as the SDK hands them over. */
const events = (...items: ConverseStreamOutput[]) => ({
  stream: (async function* () {
    yield* items;
  })(),
});

describe('the Bedrock provider streams through ConverseStream when asked to', () => {
  const mock = mockClient(BedrockRuntimeClient);
  afterEach(() => {
    mock.reset();
  });
  afterAll(() => {
    mock.restore();
  });
  const complete = (request: CompletionRequest) => bedrockProvider.complete(request);

  test('text deltas, a toolUse whose input comes in pieces, the usage from metadata', async () => {
    mock
      .on(ConverseStreamCommand)
      .resolves(
        events(
          { messageStart: { role: 'assistant' } },
          { contentBlockDelta: { delta: { text: 'Hel' }, contentBlockIndex: 0 } },
          { contentBlockDelta: { delta: { text: 'lo.' }, contentBlockIndex: 0 } },
          { contentBlockStop: { contentBlockIndex: 0 } },
          { contentBlockStart: { start: { toolUse: { toolUseId: 't1', name: 'get_weather' } }, contentBlockIndex: 1 } },
          { contentBlockDelta: { delta: { toolUse: { input: '{"city":' } }, contentBlockIndex: 1 } },
          { contentBlockDelta: { delta: { toolUse: { input: '"Lima"}' } }, contentBlockIndex: 1 } },
          { contentBlockStop: { contentBlockIndex: 1 } },
          { contentBlockStart: { start: { toolUse: { toolUseId: 't2', name: 'now' } }, contentBlockIndex: 2 } },
          { contentBlockStop: { contentBlockIndex: 2 } },
          { messageStop: { stopReason: 'tool_use' } },
          { metadata: { usage: { inputTokens: 30, outputTokens: 7, totalTokens: 37 }, metrics: { latencyMs: 1 } } },
        ),
      );
    const { deltas, completion } = await streamedFrom(
      complete,
      ask({ model: 'anthropic.claude-x', tools: [weather], messages: [{ role: 'user', content: 'weather?' }] }),
    );
    assert.deepEqual(deltas, ['Hel', 'lo.']);
    assert.deepEqual(completion, {
      content: 'Hello.',
      tool_calls: [
        { id: 't1', name: 'get_weather', arguments: { city: 'Lima' } },
        { id: 't2', name: 'now', arguments: {} },
      ],
      usage: { input_tokens: 30, output_tokens: 7 },
    });
    // The request is Converse's, sent as ConverseStream; Converse itself is not called.
    const input = mock.commandCalls(ConverseStreamCommand)[0]!.args[0].input;
    assert.equal(input.modelId, 'anthropic.claude-x');
    assert.deepEqual(input.system, [{ text: 'sys' }]);
    assert.deepEqual(input.messages, [{ role: 'user', content: [{ text: 'weather?' }] }]);
    assert.deepEqual(input.toolConfig, { tools: [{ toolSpec: { name: 'get_weather', description: undefined, inputSchema: { json: weather.input_schema } } }] });
    assert.equal(mock.commandCalls(ConverseCommand).length, 0);
  });

  test('without onText it calls Converse, as before streaming', async () => {
    mock.on(ConverseCommand).resolves({
      output: { message: { role: 'assistant', content: [{ text: 'Hi' }] } },
      usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
      stopReason: 'end_turn',
      metrics: { latencyMs: 1 },
    });
    assert.equal((await complete(ask())).content, 'Hi');
    assert.equal(mock.commandCalls(ConverseStreamCommand).length, 0);
  });

  test('a stream cut off before messageStop, or carrying an exception, is an error', async () => {
    mock
      .on(ConverseStreamCommand)
      .resolvesOnce(events({ messageStart: { role: 'assistant' } }, { contentBlockDelta: { delta: { text: 'Hal' }, contentBlockIndex: 0 } }))
      .resolvesOnce(
        events({ messageStart: { role: 'assistant' } }, {
          throttlingException: Object.assign(new Error('Too many requests'), { name: 'ThrottlingException', $fault: 'client' as const, $metadata: {} }),
        } as ConverseStreamOutput),
      );
    await assert.rejects(complete({ ...ask(), onText: () => {} }), /ended before the model had finished/);
    await assert.rejects(complete({ ...ask(), onText: () => {} }), /Too many requests/);
  });

  test('an abort mid-stream rejects with the signal’s reason, even while the next event is awaited', async () => {
    const controller = new AbortController();
    const reason = new Error('run cancelled');
    mock.on(ConverseStreamCommand).resolves({
      stream: (async function* () {
        yield { contentBlockDelta: { delta: { text: 'first' }, contentBlockIndex: 0 } } as ConverseStreamOutput;
        // The next event never comes: only the abort can end the call.
        await new Promise(() => {});
      })(),
    });
    const deltas: string[] = [];
    const call = complete({
      ...ask(),
      signal: controller.signal,
      onText: (delta) => {
        deltas.push(delta);
        setImmediate(() => controller.abort(reason));
      },
    });
    assert.equal(await rejection(call), reason);
    assert.deepEqual(deltas, ['first']);
    assert.deepEqual((mock.commandCalls(ConverseStreamCommand)[0]!.args as unknown[])[1], { abortSignal: controller.signal });
  });
});
