import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import type { StreamifyHandler } from 'aws-lambda';
import type { HttpResult } from './types.js';

/**
 * Response streaming (Lambda function URLs with `InvokeMode: RESPONSE_STREAM`).
 * Function URLs send the API Gateway payload 2.0 event shape, so streaming
 * routes read the same event, and run the same middy stack, as every other
 * route (`streamingHttpHandler` in ./handler.ts).
 */

/** A streamed answer: status and headers as any other, the body piped to the client as it is produced. */
export type StreamingResult = Omit<HttpResult, 'body'> & { body: Readable };

/*
 * The global `awslambda` (`streamifyResponse`, `HttpResponseStream.from`) is
 * provided by the Lambda Node.js runtime to response-streaming functions, and
 * on the local stack by lib/local/lambda-runtime.ts. Its type is declared by
 * @types/aws-lambda (handler.d.ts).
 */
export interface LambdaStreaming {
  streamifyResponse<E>(handler: StreamifyHandler<E, void>): StreamifyHandler<E, void>;
}

/** The runtime's response streaming, or undefined where there is none (a plain Node process, a test). */
export function lambdaStreaming(): LambdaStreaming | undefined {
  const runtime = (globalThis as { awslambda?: Partial<LambdaStreaming> }).awslambda;
  return typeof runtime?.streamifyResponse === 'function' ? (runtime as LambdaStreaming) : undefined;
}

/** Headers of every event stream. `X-Accel-Buffering: no` keeps proxies (nginx) from buffering it. */
export const EVENT_STREAM_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache',
  'X-Accel-Buffering': 'no',
};

/** The specification's keepalive: a data line that is not JSON (Events 5). */
export const KEEPALIVE_FRAME = 'data: keepalive\n\n';

/**
 * One SSE message: an optional `id:` line, then the data, one `data:` line
 * per line of it (JSON from JSON.stringify is always one line), then a
 * blank line.
 */
export function sseFrame(data: string, id?: number | string): string {
  const idLine = id === undefined ? '' : `id: ${String(id).replace(/[\r\n]/g, '')}\n`;
  const dataLines = data
    .split(/\r\n|\r|\n/)
    .map((line) => `data: ${line}\n`)
    .join('');
  return `${idLine}${dataLines}\n`;
}

export const jsonFrame = (payload: unknown, id?: number | string): string => sseFrame(JSON.stringify(payload), id);

/**
 * A response body read from an async iterable of text, made on the first
 * read (an async generator, typically). It is read only as fast as the
 * client takes it (back-pressure). When the body is destroyed (the client
 * went away), `signal` aborts first, so a producer waiting for something
 * stops at once, then the iterator is closed (its `finally` blocks run).
 */
export function streamBody(produce: (signal: AbortSignal) => AsyncIterable<string>): Readable {
  const stop = new AbortController();
  let iterator: AsyncIterator<string> | undefined;
  const body: Readable = new Readable({
    read() {
      const pull = async () => {
        iterator ??= produce(stop.signal)[Symbol.asyncIterator]();
        for (;;) {
          const next = await iterator.next();
          if (next.done) return body.push(null);
          // An empty push would end this read without asking for the next.
          if (next.value.length > 0) return body.push(next.value);
        }
      };
      pull().catch((error: Error) => body.destroy(error));
    },
    destroy(error, callback) {
      stop.abort();
      Promise.resolve(iterator?.return?.()).then(
        () => callback(error),
        (failure: Error) => callback(error ?? failure),
      );
    },
  });
  return body;
}

/**
 * The buffered form of an answer, where there is no response streaming: a
 * streamed body is read to its end, as Lambda does for a streaming function
 * invoked without streaming.
 */
export async function buffered(result: HttpResult | StreamingResult): Promise<HttpResult> {
  return typeof result.body === 'string' ? (result as HttpResult) : { ...result, body: await text(result.body) };
}

/**
 * The response stream closed before the body ended: the client went away.
 * That is how live streams usually end, not a failure of the invocation.
 */
export const clientGone = (error: unknown): boolean => (error as { code?: unknown } | undefined)?.code === 'ERR_STREAM_PREMATURE_CLOSE';
