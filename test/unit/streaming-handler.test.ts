import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import type { APIGatewayProxyEventV2, StreamifyHandler } from 'aws-lambda';
import { afterEach, describe, test } from 'vitest';
import { UnauthorizedError } from '#platform/errors.js';
import { defineEndpoint } from '#platform/http/contract.js';
import { type AuthMiddleware, streamingHttpHandler } from '#platform/http/handler.js';
import { EVENT_STREAM_HEADERS, streamBody } from '#platform/http/streaming.js';
import type { ApiContext, HttpEvent } from '#platform/http/types.js';

const event = (path: string, headers: Record<string, string> = {}, method = 'GET'): APIGatewayProxyEventV2 =>
  ({
    version: '2.0',
    routeKey: '$default',
    rawPath: path,
    rawQueryString: '',
    headers: { 'x-request-id': 'trace-1', ...headers },
    requestContext: { http: { method, path } },
    isBase64Encoded: false,
  }) as unknown as APIGatewayProxyEventV2;
const context = () => ({ getRemainingTimeInMillis: () => 60_000 }) as unknown as ApiContext;

/** The Lambda runtime's response streaming, as far as the handler sees it: metadata, then the bytes. */
function installRuntime() {
  const metadata: Array<Record<string, unknown>> = [];
  (globalThis as { awslambda?: unknown }).awslambda = {
    streamifyResponse: (handler: unknown) => handler,
    HttpResponseStream: {
      from: (stream: Writable, meta: Record<string, unknown>) => {
        metadata.push(meta);
        return stream;
      },
    },
  };
  return metadata;
}
afterEach(() => {
  delete (globalThis as { awslambda?: unknown }).awslambda;
});

class Client extends Writable {
  readonly chunks: string[] = [];
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.chunks.push(chunk.toString());
    callback();
  }
}

/** Refuses without `Authorization`, as bearerAuth does. */
const auth: AuthMiddleware<'bearer'> = {
  scheme: 'bearer',
  before: (request) => {
    if (!request.event.headers.authorization) throw new UnauthorizedError();
  },
};
const LISTEN = defineEndpoint({
  id: 'TestListen',
  method: 'GET',
  path: '/things/{id}/listen',
  handler: 'test.ts',
  auth: 'bearer',
  streaming: true,
  table: 'none',
  undocumented: 'a test',
});

/** A route streaming `frames` for a thing, recording how its producer ended. */
function route(frames: (id: string, signal: AbortSignal) => AsyncGenerator<string>) {
  const producer = { started: false, finished: false, signal: undefined as AbortSignal | undefined };
  const handler = streamingHttpHandler(LISTEN, { auth, served: [LISTEN] }, async ({ params }) => ({
    statusCode: 200,
    headers: { ...EVENT_STREAM_HEADERS },
    body: streamBody(async function* (signal) {
      producer.started = true;
      producer.signal = signal;
      try {
        yield* frames(params.id!, signal);
      } finally {
        producer.finished = true;
      }
    }),
  }));
  return { handler, producer };
}

async function* twoFrames(id: string): AsyncGenerator<string> {
  yield `data: ${id}\n\n`;
  yield 'data: two\n\n';
}

describe('streamingHttpHandler with the runtime’s response streaming', () => {
  test('the same stack: status and headers first (request id, Cache-Control of the stream), then the body as produced', async () => {
    const metadata = installRuntime();
    const { handler } = route(twoFrames);
    const client = new Client();
    await (handler as StreamifyHandler)(event('/things/t1/listen', { authorization: 'Bearer x' }), client as never, context());
    assert.deepEqual(metadata, [{ statusCode: 200, headers: { ...EVENT_STREAM_HEADERS, 'Cache-Control': 'no-cache', 'X-Request-Id': 'trace-1' } }]);
    assert.equal(client.chunks.join(''), 'data: t1\n\ndata: two\n\n');
    assert.ok(client.writableFinished, 'the response ended');
  });

  test('refusals are whole problem documents before any stream; the path is checked against the contract’s before auth', async () => {
    const metadata = installRuntime();
    const { handler, producer } = route(twoFrames);
    const unauthorized = new Client();
    await (handler as StreamifyHandler)(event('/things/t1/listen'), unauthorized as never, context());
    const notFound = new Client();
    await (handler as StreamifyHandler)(event('/elsewhere'), notFound as never, context());
    const notAllowed = new Client();
    await (handler as StreamifyHandler)(event('/things/t1/listen', {}, 'POST'), notAllowed as never, context());
    assert.deepEqual(
      metadata.map((m) => [m.statusCode, (m.headers as Record<string, string>)['Content-Type'], (m.headers as Record<string, string>)['X-Request-Id']]),
      [
        [401, 'application/problem+json', 'trace-1'],
        [404, 'application/problem+json', 'trace-1'],
        [405, 'application/problem+json', 'trace-1'],
      ],
    );
    assert.equal((metadata[2]!.headers as Record<string, string>).Allow, 'GET');
    assert.equal((metadata[0]!.headers as Record<string, string>)['WWW-Authenticate'], 'Bearer realm="workflow-service"');
    assert.equal(JSON.parse(unauthorized.chunks.join('')).code, 'unauthorized');
    assert.equal(JSON.parse(notFound.chunks.join('')).code, 'not_found');
    assert.equal(producer.started, false, 'nothing was streamed');
  });

  test('a client going away mid-stream stops the producer at once and is not a failed invocation', async () => {
    installRuntime();
    const { handler, producer } = route(async function* (id, signal) {
      yield `data: ${id}\n\n`;
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      yield 'data: never read\n\n';
    });
    const client = new Client();
    const served = (handler as StreamifyHandler)(event('/things/t1/listen', { authorization: 'Bearer x' }), client as never, context());
    while (client.chunks.length === 0) await new Promise((resolve) => setImmediate(resolve));
    client.destroy();
    await served;
    assert.equal(producer.signal?.aborted, true);
    assert.equal(producer.finished, true);
    assert.deepEqual(client.chunks, ['data: t1\n\n']);
  });

  test('a producer that fails mid-stream fails the invocation', async () => {
    installRuntime();
    const { handler } = route(async function* () {
      yield 'data: one\n\n';
      throw new Error('broken');
    });
    await assert.rejects((handler as StreamifyHandler)(event('/things/t1/listen', { authorization: 'Bearer x' }), new Client() as never, context()), /broken/);
  });
});

describe('streamingHttpHandler without the runtime (the fallback)', () => {
  test('answers buffered: the whole body once it ended, and the same refusals', async () => {
    const { handler, producer } = route(twoFrames);
    const answer = handler as (e: HttpEvent, c: ApiContext) => Promise<{ statusCode: number; headers: Record<string, string>; body: string }>;
    const streamed = await answer(event('/things/t2/listen', { authorization: 'Bearer x' }), context());
    assert.deepEqual(streamed, {
      statusCode: 200,
      headers: { ...EVENT_STREAM_HEADERS, 'Cache-Control': 'no-cache', 'X-Request-Id': 'trace-1' },
      body: 'data: t2\n\ndata: two\n\n',
    });
    assert.equal(producer.finished, true);
    const refused = await answer(event('/things/t2/listen'), context());
    assert.equal(refused.statusCode, 401);
    assert.equal(JSON.parse(refused.body).code, 'unauthorized');
  });
});
