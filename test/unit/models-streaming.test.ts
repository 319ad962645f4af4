import assert from 'node:assert/strict';
import { BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand, type ConverseStreamOutput } from '@aws-sdk/client-bedrock-runtime';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, describe, test } from 'vitest';
import { bedrockProvider } from '#models/bedrock.js';
import { openaiProvider } from '#models/openai.js';
import { eventData } from '#models/sse.js';
import type { Completion, CompletionRequest, ToolSpec } from '#models/types.js';
import { type OpenAIStreamServer, startOpenAIStreamServer, textChunk, toolCallChunk, usageChunk } from '../helpers/openai-stream-server.js';

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

describe('the OpenAI-compatible provider streams when asked to', () => {
  let server: OpenAIStreamServer;
  beforeAll(async () => {
    server = await startOpenAIStreamServer();
    process.env.OPENAI_BASE_URL = server.url;
    process.env.OPENAI_API_KEY = 'test-key';
  });
  afterAll(async () => {
    await server.close();
    delete process.env.OPENAI_BASE_URL;
    delete process.env.OPENAI_API_KEY;
  });
  const complete = (request: CompletionRequest) => openaiProvider.complete(request);

  test('text comes to onText in order, and the usage from the last chunk', async () => {
    server.answer({ chunks: [textChunk('Hel'), textChunk('lo, '), textChunk(''), textChunk('world'), usageChunk(12, 3)], delayMs: 5 });
    const { deltas, completion } = await streamedFrom(complete, ask({ tools: [weather] }));
    assert.deepEqual(deltas, ['Hel', 'lo, ', 'world']);
    assert.deepEqual(completion, { content: 'Hello, world', usage: { input_tokens: 12, output_tokens: 3 } });
    const body = server.requests.at(-1)!;
    assert.equal(body.stream, true);
    assert.deepEqual(body.stream_options, { include_usage: true });
    assert.deepEqual(body.messages, [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'hi' },
    ]);
    assert.equal((body.tools as unknown[]).length, 1);
  });

  test('tool calls split over chunks are put together by index, their arguments parsed at the end', async () => {
    server.answer({
      chunks: [
        toolCallChunk(0, { id: 'c1', name: 'get_weather' }),
        toolCallChunk(0, { arguments: '{"ci' }),
        toolCallChunk(1, { id: 'c2', name: 'now', arguments: '' }),
        toolCallChunk(0, { arguments: 'ty":"Oslo"}' }),
        toolCallChunk(2, { id: 'c3', name: 'get_weather', arguments: '{"city":' }),
        usageChunk(20, 9),
      ],
    });
    const { deltas, completion } = await streamedFrom(complete, ask({ tools: [weather] }));
    assert.deepEqual(deltas, []);
    assert.deepEqual(completion, {
      content: '',
      tool_calls: [
        { id: 'c1', name: 'get_weather', arguments: { city: 'Oslo' } },
        { id: 'c2', name: 'now', arguments: {} },
        // Cut off, as before streaming: kept raw for the schema check to refuse.
        { id: 'c3', name: 'get_weather', arguments: { _raw: '{"city":' } },
      ],
      usage: { input_tokens: 20, output_tokens: 9 },
    });
  });

  test('an abort mid-stream rejects with the signal’s reason and lets the connection go', async () => {
    server.answer({ chunks: [textChunk('first '), textChunk('never')], delayMs: 60_000 });
    const n = server.requests.length;
    const controller = new AbortController();
    const reason = new Error('run cancelled');
    const deltas: string[] = [];
    const call = complete({
      ...ask(),
      signal: controller.signal,
      onText: (delta) => {
        deltas.push(delta);
        // Later, while the next read is pending: the case a cancel of the run meets.
        setImmediate(() => controller.abort(reason));
      },
    });
    // The server holds the second chunk back for a minute: only the abort can end this call in time.
    assert.equal(await rejection(call), reason);
    assert.deepEqual(deltas, ['first ']);
    await server.disconnected(n);
  });

  test('an abort before the request is sent rejects as well', async () => {
    const controller = new AbortController();
    controller.abort();
    assert.equal(((await rejection(complete({ ...ask(), signal: controller.signal, onText: () => {} }))) as Error).name, 'AbortError');
  });

  test('upstream errors read as they did before streaming', async () => {
    server.answer(
      { status: 429, body: '{"error":{"message":"slow down"}}' },
      { chunks: [textChunk('Hi'), { error: { message: 'overloaded' } }] },
      { status: 200, contentType: 'text/event-stream', body: 'data: {not json\n\n' },
    );
    const onText = () => {};
    await assert.rejects(complete({ ...ask(), onText }), /answered 429: .*slow down/);
    await assert.rejects(complete({ ...ask(), onText }), /answered 200: .*overloaded/);
    await assert.rejects(complete({ ...ask(), onText }), /answered 200 with an event that is not JSON/);
  });

  test('a server that answers without streaming gives its text as one piece', async () => {
    const completion = {
      id: 'x',
      object: 'chat.completion',
      created: 0,
      model: 'm',
      choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'All at once.' } }],
      usage: { prompt_tokens: 4, completion_tokens: 3, total_tokens: 7 },
    };
    server.answer({ status: 200, body: JSON.stringify(completion) }, { status: 200, body: JSON.stringify(completion) });
    const { deltas, completion: streamed } = await streamedFrom(complete, ask());
    assert.deepEqual(deltas, ['All at once.']);
    // Without onText, the request is the one made before streaming, and the answer the same.
    assert.deepEqual(await complete(ask()), streamed);
    assert.equal('stream' in server.requests.at(-1)!, false);
  });
});

describe('the SSE reader', () => {
  const bodyOf = (...parts: string[]) =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (const part of parts) controller.enqueue(new TextEncoder().encode(part));
        controller.close();
      },
    });
  const read = async (body: ReadableStream<Uint8Array>) => {
    const out: string[] = [];
    for await (const data of eventData(body)) out.push(data);
    return out;
  };

  test('reads data lines across reads, CRLF split between them, comments, and a last event without its blank line', async () => {
    const body = bodyOf(': keep-alive\n\nda', 'ta: {"a":1}\r', '\n\r\ndata: one\ndata:two\n\nevent: x\ndata: é'.slice(0, -1), 'é\n', '\ndata: [DONE]');
    assert.deepEqual(await read(body), ['{"a":1}', 'one\ntwo', 'é', '[DONE]']);
  });

  test('a multi-byte character split between reads is decoded whole', async () => {
    const bytes = new TextEncoder().encode('data: ✓\n\n');
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, 7));
        controller.enqueue(bytes.slice(7));
        controller.close();
      },
    });
    assert.deepEqual(await read(body), ['✓']);
  });
});

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
