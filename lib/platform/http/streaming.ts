import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { HttpResult } from './types.js';

/**
 * Response streaming (Lambda function URLs with `InvokeMode: RESPONSE_STREAM`).
 * Function URLs send the API Gateway payload 2.0 event shape, so streaming
 * handlers read the same event as every other route.
 */
export type StreamingEvent = APIGatewayProxyEventV2;

export type ResponseMetadata = {
  statusCode: number;
  headers?: Record<string, string>;
  cookies?: string[];
};

/*
 * The global `awslambda` (`streamifyResponse`, `HttpResponseStream.from`) is
 * provided by the Lambda Node.js runtime to response-streaming functions, and
 * on the local stack by lib/local/lambda-runtime.ts. Its type is declared by
 * @types/aws-lambda (handler.d.ts), which the import above loads.
 */

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

/** Sets status and headers, and returns the stream to write the body to. */
export const openStream = (responseStream: Writable, metadata: ResponseMetadata): Writable => awslambda.HttpResponseStream.from(responseStream, metadata);

/** Opens a `text/event-stream` answer (200). */
export const openEventStream = (responseStream: Writable, requestId: string): Writable =>
  openStream(responseStream, { statusCode: 200, headers: { ...EVENT_STREAM_HEADERS, 'X-Request-Id': requestId } });

/**
 * Answers with a complete, non-streamed result instead of opening a stream:
 * a problem document from `errorResponse` (lib/platform/http/problem.ts), or a 204.
 * Carries the same `X-Request-Id` and `Cache-Control` as the middy stack's
 * answers.
 */
export async function answerWhole(responseStream: Writable, result: HttpResult, requestId: string): Promise<void> {
  const stream = openStream(responseStream, {
    statusCode: result.statusCode,
    headers: { 'Cache-Control': 'no-store', ...result.headers, 'X-Request-Id': requestId },
  });
  await endStream(stream, result.body ? result.body : undefined);
}

/** Ends the stream and waits until it is flushed, or gone (client disconnected). */
export async function endStream(stream: Writable, last?: string): Promise<void> {
  if (!stream.writableEnded && !stream.destroyed) stream.end(last);
  await finished(stream).catch(() => undefined);
}
