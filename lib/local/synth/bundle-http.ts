import type { ServerResponse } from 'node:http';

/** What `awslambda.HttpResponseStream.from` was given: the status and headers of a streamed answer. */
export interface StreamPrelude {
  statusCode?: number;
  headers?: Record<string, string>;
  cookies?: string[];
}

/** Where an invocation's streamed answer goes; `chunk` resolves when the next may come (back-pressure). */
export interface InvocationSink {
  head(prelude: StreamPrelude): void;
  chunk(data: Uint8Array): Promise<void> | void;
  end(): void;
}

/** A response-streaming function URL: the prelude as status and headers, then each chunk as it is written. */
export function responseSink(res: ServerResponse): InvocationSink {
  return {
    head: (prelude) => {
      const headers: Record<string, string | string[]> = { ...prelude.headers };
      if (prelude.cookies?.length) headers['Set-Cookie'] = prelude.cookies;
      res.writeHead(prelude.statusCode ?? 200, headers);
      res.flushHeaders();
    },
    // The callback comes, with an error, even once the client has gone.
    chunk: (data) => new Promise<void>((resolve) => res.write(data, () => resolve())),
    end: () => res.end(),
  };
}

/** A buffered function behind a function URL: its result read as a payload 2.0 answer, as the URL reads it. */
export function writeBufferedResult(res: ServerResponse, result: unknown): void {
  if (res.headersSent || res.destroyed) return;
  if (typeof result !== 'object' || result === null || !('statusCode' in result)) {
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(typeof result === 'string' ? result : JSON.stringify(result));
    return;
  }
  const r = result as { statusCode: number; headers?: Record<string, string>; body?: string; cookies?: string[]; isBase64Encoded?: boolean };
  const headers: Record<string, string | string[]> = { ...r.headers };
  if (r.cookies?.length) headers['Set-Cookie'] = r.cookies;
  res.writeHead(r.statusCode, headers);
  res.end(r.body === undefined ? undefined : r.isBase64Encoded ? Buffer.from(r.body, 'base64') : r.body);
}

/**
 * A failed invocation behind a function URL: a 502 when nothing was sent
 * yet; a stream already under way is cut, so the client sees it incomplete.
 */
export function writeFailure(res: ServerResponse): void {
  if (!res.headersSent) {
    res.writeHead(502, { 'Content-Type': 'application/json' }).end(JSON.stringify({ Message: 'Internal Server Error' }));
  } else if (!res.writableEnded) {
    res.destroy();
  }
}
