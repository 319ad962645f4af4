import assert from 'node:assert/strict';
import { afterAll, afterEach, beforeAll, describe, test, vi } from 'vitest';
import { openaiProvider } from '#models/openai.js';
import type { Completion, CompletionRequest, ToolSpec } from '#models/types.js';
import { type OpenAIStreamServer, startOpenAIStreamServer, textChunk, toolCallChunk, usageChunk } from '../helpers/openai-stream-server.js';

const weather: ToolSpec = { name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } };
const ask = (extra: Partial<CompletionRequest> = {}): Omit<CompletionRequest, 'onText'> => ({
  model: 'm',
  system: 'sys',
  messages: [{ role: 'user', content: 'hi' }],
  ...extra,
});
const complete = (request: CompletionRequest) => openaiProvider.complete(request);

/** Completes with an `onText` that records its pieces, and checks the invariant: they join into the content. */
async function streamedFrom(request: Omit<CompletionRequest, 'onText'>) {
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

describe('the OpenAI-compatible provider streams from a local server', () => {
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

  test('text comes to onText in order, and the usage from the last chunk', async () => {
    server.answer({ chunks: [textChunk('Hel'), textChunk('lo, '), textChunk(''), textChunk('world'), usageChunk(12, 3)], delayMs: 5 });
    const { deltas, completion } = await streamedFrom(ask({ tools: [weather] }));
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
    const { deltas, completion } = await streamedFrom(ask({ tools: [weather] }));
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
    const n = server.requests.length;
    assert.equal(((await rejection(complete({ ...ask(), signal: controller.signal, onText: () => {} }))) as Error).name, 'AbortError');
    assert.equal(server.requests.length, n);
  });

  test('upstream errors read as they did before streaming, each after one request (no retries)', async () => {
    const silenced = vi.spyOn(console, 'error').mockImplementation(() => {});
    server.answer(
      { status: 429, body: '{"error":{"message":"slow down"}}' },
      { chunks: [textChunk('Hi'), { error: { message: 'overloaded' } }] },
      { status: 200, contentType: 'text/event-stream', body: 'data: {not json\n\n' },
    );
    const onText = () => {};
    const n = server.requests.length;
    try {
      await assert.rejects(complete({ ...ask(), onText }), /answered 429: .*slow down/);
      await assert.rejects(complete({ ...ask(), onText }), /answered 200: .*overloaded/);
      await assert.rejects(complete({ ...ask(), onText }), /answered 200 with an event that is not JSON/);
    } finally {
      silenced.mockRestore();
    }
    assert.equal(server.requests.length, n + 3);
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
    const { deltas, completion: streamed } = await streamedFrom(ask());
    assert.deepEqual(deltas, ['All at once.']);
    // Without onText, the request is the one made before streaming, and the answer the same.
    assert.deepEqual(await complete(ask()), streamed);
    assert.equal('stream' in server.requests.at(-1)!, false);
  });
});

/** A chunk as the endpoint sends it: the fields every chunk carries around the test's part. */
const chunkOf = (part: Record<string, unknown>) => ({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 0, model: 'm', ...part });

/** The SSE body of these chunks then `[DONE]`, each event with a comment line, in CRLF lines. */
const sseOf = (chunks: Array<Record<string, unknown>>) =>
  [...chunks.map((chunk) => `: keep-alive\r\ndata: ${JSON.stringify(chunkOf(chunk))}\r\n\r\n`), 'data: [DONE]\r\n\r\n'].join('');

/** The bytes of `text` cut into reads of `size` bytes: cuts inside events, inside CRLFs and inside characters. */
function piecesOf(text: string, size: number): Uint8Array[] {
  const bytes = new TextEncoder().encode(text);
  const pieces: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) pieces.push(bytes.slice(i, i + size));
  return pieces;
}

/**
 * A fake `fetch` answering every request with a 200 whose body streams
 * these reads, then ends (or, with `hold`, never does). Records each
 * call's URL and options (headers, body, signal).
 */
function fakeFetch(reads: Uint8Array[], options: { hold?: boolean } = {}) {
  const calls: Array<{ url: string; init: RequestInit }> = [];
  const fetch = vi.fn(async (url: string, init: RequestInit) => {
    calls.push({ url, init });
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const read of reads) controller.enqueue(read);
        if (!options.hold) controller.close();
      },
    });
    return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream; charset=utf-8' } });
  });
  vi.stubGlobal('fetch', fetch);
  return calls;
}

describe('the OpenAI-compatible provider reads the stream with the SDK’s parser', () => {
  beforeAll(() => {
    process.env.OPENAI_BASE_URL = 'http://compatible.test/v1/';
    process.env.OPENAI_API_KEY = 'fake-key';
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });
  afterAll(() => {
    delete process.env.OPENAI_BASE_URL;
    delete process.env.OPENAI_API_KEY;
  });

  const answer = [
    textChunk('Grüße '),
    toolCallChunk(0, { id: 'c1', name: 'get_weather' }),
    textChunk('aus ✓ Oslo'),
    toolCallChunk(0, { arguments: '{"city":' }),
    toolCallChunk(1, { id: 'c2', name: 'now' }),
    toolCallChunk(0, { arguments: '"Oslo"}' }),
    usageChunk(7, 5),
  ];
  const expected: Completion = {
    content: 'Grüße aus ✓ Oslo',
    tool_calls: [
      { id: 'c1', name: 'get_weather', arguments: { city: 'Oslo' } },
      { id: 'c2', name: 'now', arguments: {} },
    ],
    usage: { input_tokens: 7, output_tokens: 5 },
  };

  test.each([1, 2, 3, 7, 64, 100_000])('reads of %i bytes (cut inside events, CRLFs and characters) give the same answer', async (size) => {
    const calls = fakeFetch(piecesOf(sseOf(answer), size));
    const { deltas, completion } = await streamedFrom(ask({ tools: [weather] }));
    assert.deepEqual(completion, expected);
    assert.deepEqual(deltas, ['Grüße ', 'aus ✓ Oslo']);
    assert.equal(calls.length, 1);
    assert.equal(calls[0]!.url, 'http://compatible.test/v1/chat/completions');
    const headers = calls[0]!.init.headers as Record<string, string>;
    assert.equal(headers.authorization, 'Bearer fake-key');
    assert.equal(headers.accept, 'text/event-stream');
  });

  test('an error event after the 200 rejects with the upstream error and lets the connection go', async () => {
    const overloaded = `data: ${JSON.stringify({ error: { message: 'overloaded' } })}\r\n\r\n`;
    // No [DONE] and no end of the body after the error: only the error can settle the call.
    const calls = fakeFetch(piecesOf(sseOf([textChunk('Hi')]).replace('data: [DONE]\r\n\r\n', overloaded), 5), { hold: true });
    const { deltas, result } = listening(ask());
    assert.match(String(await rejection(result)), /answered 200: .*overloaded/);
    assert.deepEqual(deltas, ['Hi']);
    assert.equal(calls[0]!.init.signal?.aborted, true);
  });

  test('an abort while the next chunk is awaited rejects with its reason and aborts the request', async () => {
    const calls = fakeFetch(piecesOf(`data: ${JSON.stringify(chunkOf(textChunk('first ')))}\n\n`, 4), { hold: true });
    const controller = new AbortController();
    const reason = new Error('run cancelled');
    const { deltas, result } = listening({ ...ask(), signal: controller.signal }, () => controller.abort(reason));
    // The body never ends: only the abort settles the call.
    assert.equal(await rejection(result), reason);
    assert.deepEqual(deltas, ['first ']);
    assert.equal(calls[0]!.init.signal?.aborted, true);
  });
});

/** Starts a call whose `onText` records each piece and then runs `after` on the next turn of the event loop. */
function listening(request: Omit<CompletionRequest, 'onText'>, after?: () => void) {
  const deltas: string[] = [];
  const result = complete({
    ...request,
    onText: (delta) => {
      deltas.push(delta);
      if (after) setImmediate(after);
    },
  });
  return { deltas, result };
}
