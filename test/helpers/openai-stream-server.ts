import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as wait } from 'node:timers/promises';

/** What the server answers one request with, scripted by a test. */
export interface StreamAnswer {
  /** The chunks, each sent as one `data:` event; `id`, `object`, `created` and `model` are filled in. */
  chunks?: Array<Record<string, unknown>>;
  /** Waited before each chunk after the first, so a client can act between them. */
  delayMs?: number;
  /** After the chunks, keep the response open until the client goes away (no `[DONE]`). */
  hang?: boolean;
  /** A plain answer instead of a stream: an upstream error, or a server that does not stream. */
  status?: number;
  body?: string;
  contentType?: string;
}

export interface OpenAIStreamServer {
  /** The base URL, as OPENAI_BASE_URL takes it. */
  url: string;
  /** The JSON bodies received, in order. */
  requests: Array<Record<string, unknown>>;
  /** Resolves when the client has gone away from the n-th request (0-based) before its answer ended. */
  disconnected(n: number): Promise<void>;
  /** Queues answers for the next requests, one each. */
  answer(...answers: StreamAnswer[]): void;
  close(): Promise<void>;
}

/** A chunk carrying a piece of the assistant's text. */
export const textChunk = (content: string) => ({ choices: [{ index: 0, delta: { content }, finish_reason: null }] });

/** A chunk carrying a piece of a tool call: the first of a call has its id and name, the rest only arguments. */
export const toolCallChunk = (index: number, part: { id?: string; name?: string; arguments?: string }) => ({
  choices: [
    {
      index: 0,
      delta: {
        tool_calls: [
          {
            index,
            ...(part.id ? { id: part.id, type: 'function' } : {}),
            function: { ...(part.name ? { name: part.name } : {}), arguments: part.arguments ?? '' },
          },
        ],
      },
      finish_reason: null,
    },
  ],
});

/** The last chunk of a stream with `include_usage`: no choices, the usage of the whole request. */
export const usageChunk = (prompt: number, completion: number) => ({
  choices: [],
  usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
});

async function stream(res: ServerResponse, answer: StreamAnswer, gone: () => boolean): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const [i, chunk] of (answer.chunks ?? []).entries()) {
    if (i > 0 && answer.delayMs) await wait(answer.delayMs);
    if (gone()) return;
    res.write(`data: ${JSON.stringify({ id: 'chatcmpl-test', object: 'chat.completion.chunk', created: 0, model: 'gpt-test', ...chunk })}\n\n`);
  }
  if (answer.hang) return;
  res.end('data: [DONE]\n\n');
}

/**
 * A local stand-in for an OpenAI-compatible chat completions endpoint that
 * streams (`stream: true`): Server-Sent Events of chunks, then `[DONE]`, as
 * each test scripts them. Loopback only, on a free port.
 */
export async function startOpenAIStreamServer(): Promise<OpenAIStreamServer> {
  const queue: StreamAnswer[] = [];
  const requests: Array<Record<string, unknown>> = [];
  const disconnects: Array<{ promise: Promise<void>; resolve: () => void }> = [];
  const disconnectOf = (n: number) => {
    if (!disconnects[n]) {
      let resolve = () => {};
      const promise = new Promise<void>((done) => {
        resolve = done;
      });
      disconnects[n] = { promise, resolve };
    }
    return disconnects[n];
  };
  const server = createServer((req, res) => {
    const n = requests.length;
    let body = '';
    req.on('data', (part) => {
      body += part;
    });
    req.on('end', () => {
      requests.push(JSON.parse(body));
      const answer = queue.shift() ?? { status: 500, body: '{"error":{"message":"no answer scripted"}}' };
      let gone = false;
      res.on('close', () => {
        gone = !res.writableEnded;
        if (gone) disconnectOf(n).resolve();
      });
      if (answer.status !== undefined || answer.body !== undefined) {
        res.writeHead(answer.status ?? 200, { 'content-type': answer.contentType ?? 'application/json' }).end(answer.body ?? '');
        return;
      }
      void stream(res, answer, () => gone);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    disconnected: (n) => disconnectOf(n).promise,
    answer: (...answers) => queue.push(...answers),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
