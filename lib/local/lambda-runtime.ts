import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import type { Context } from 'aws-lambda';

/** A Lambda context with a real deadline, as Powertools idempotency reads it. */
export function lambdaContext(functionName: string, timeoutSeconds: number): Context {
  const deadline = Date.now() + timeoutSeconds * 1000;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/**
 * The response stream a streaming handler writes to. Until
 * `HttpResponseStream.from` sets status and headers, the answer is a 200
 * `application/octet-stream`, as in the Lambda runtime.
 */
export class LocalResponseStream extends Writable {
  private headersSent = false;

  constructor(private readonly res: ServerResponse) {
    super();
    res.on('close', () => {
      if (!this.writableFinished) this.destroy();
    });
  }

  setMetadata(metadata: { statusCode?: number; headers?: Record<string, string>; cookies?: string[] }): void {
    if (this.headersSent) return;
    this.headersSent = true;
    const headers: Record<string, string | string[]> = { ...(metadata.headers ?? {}) };
    if (metadata.cookies?.length) headers['Set-Cookie'] = metadata.cookies;
    this.res.writeHead(metadata.statusCode ?? 200, headers);
    this.res.flushHeaders();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (!this.headersSent) this.setMetadata({ statusCode: 200, headers: { 'Content-Type': 'application/octet-stream' } });
    this.res.write(chunk, callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    if (!this.headersSent) this.setMetadata({ statusCode: 200, headers: { 'Content-Type': 'application/octet-stream' } });
    this.res.end(callback);
  }
}

const STREAMING = Symbol.for('local.awslambda.streaming');

export type StreamingHandler = (event: unknown, responseStream: Writable, context: Context) => Promise<void>;

/**
 * Installs a stand-in for the Lambda runtime's global `awslambda`, so
 * handlers written for response streaming run unchanged on the local stack.
 */
export function installAwsLambdaGlobal(): void {
  // Powertools may already have put an InvokeStore on `awslambda`; add to it.
  const target = globalThis as { awslambda?: Record<string, unknown> };
  if (typeof target.awslambda?.streamifyResponse === 'function') return;
  target.awslambda = {
    ...target.awslambda,
    streamifyResponse: (handler: StreamingHandler) => Object.assign(handler, { [STREAMING]: true }),
    HttpResponseStream: {
      from: (stream: Writable, metadata: { statusCode?: number; headers?: Record<string, string>; cookies?: string[] }) => {
        if (stream instanceof LocalResponseStream) stream.setMetadata(metadata);
        return stream;
      },
    },
  };
}

export const isStreamingHandler = (handler: unknown): handler is StreamingHandler =>
  typeof handler === 'function' && (handler as unknown as Record<symbol, unknown>)[STREAMING] === true;
