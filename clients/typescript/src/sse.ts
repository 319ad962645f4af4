import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { ProblemError } from './problem.js';
import { backoffMs, type Fetch, sleep } from './retry.js';

export interface StreamOptions {
  /** Start after this event (an id the same stream sent), as a reconnecting EventSource does. */
  lastEventId?: string | undefined;
  /** Ends the iteration (without an error) when it aborts; so does leaving the `for await` loop. */
  signal?: AbortSignal | undefined;
}

/** One of the service's Server-Sent Events streams, as {@link follow} reads it. */
export interface EventStream<T> {
  url: string;
  /** What a message carries; undefined for one that carries nothing (a keepalive). */
  parse(message: EventSourceMessage): T | undefined;
  /** Whether `item` is the stream's last: the service closes the stream after it. */
  isLast(item: T): boolean;
  /** Once `item` (sent in `message`) is delivered: the id a new connection resumes after (`Last-Event-ID`). */
  resumeAfter(item: T, message: EventSourceMessage): string | undefined;
}

/** Before reconnecting, unless the server's `retry:` says otherwise (the EventSource default is about as long). */
export const DEFAULT_RECONNECT_MS = 1_000;

/**
 * The items of `stream`, over `fetch` (so with the bearer token, which EventSource cannot send):
 * connects, parses the messages with eventsource-parser, and when the connection drops or the
 * server closes it before the last item (its 30-minute limit), connects again with
 * `Last-Event-ID`, after the server's `retry:` hint. It ends after the last item, on a 204 (a
 * resume after the end: nothing more will come), or when `signal` aborts. A refusal (401, 404,
 * 410 `event_cursor_expired`, …) throws a `ProblemError`; after `retries` connections in a row
 * that sent nothing, the last failure is thrown.
 */
export async function* follow<T>(
  stream: EventStream<T>,
  options: StreamOptions & { send: Fetch; retries: number; credentials?: RequestInit['credentials'] | undefined },
): AsyncGenerator<T, void, undefined> {
  const { signal, send, retries, credentials } = options;
  let lastEventId = options.lastEventId;
  let reconnectMs = DEFAULT_RECONNECT_MS;
  /** Connections in a row that sent nothing. */
  let failures = 0;
  while (!signal?.aborted) {
    const connection = new AbortController();
    const stop = () => connection.abort(signal?.reason);
    signal?.addEventListener('abort', stop, { once: true });
    let heard = false;
    let failure: unknown;
    try {
      const headers: Record<string, string> = { Accept: 'text/event-stream' };
      if (lastEventId !== undefined) headers['Last-Event-ID'] = lastEventId;
      let response: Response | undefined;
      try {
        response = await send(new Request(stream.url, { headers, signal: connection.signal, ...(credentials ? { credentials } : {}) }));
      } catch (error) {
        if (signal?.aborted) return;
        failure = error;
      }
      if (response) {
        if (response.status === 204) return;
        if (!response.ok) throw await ProblemError.from(response);
        if (!response.body) throw new Error(`${stream.url} answered ${response.status} without a body`);
        const received: Array<{ item: T; message: EventSourceMessage }> = [];
        const parser = createParser({
          onEvent: (message) => {
            const item = stream.parse(message);
            if (item !== undefined) received.push({ item, message });
          },
          onRetry: (ms) => {
            reconnectMs = ms;
          },
        });
        const reader = response.body.getReader();
        const decoder = new TextDecoder();
        for (;;) {
          let chunk: Awaited<ReturnType<typeof reader.read>>;
          try {
            chunk = await reader.read();
          } catch (error) {
            if (signal?.aborted) return;
            failure = error;
            break;
          }
          if (chunk.done) break;
          heard = true;
          parser.feed(decoder.decode(chunk.value, { stream: true }));
          for (const { item, message } of received.splice(0)) {
            lastEventId = stream.resumeAfter(item, message);
            yield item;
            if (stream.isLast(item)) return;
          }
        }
      }
    } finally {
      signal?.removeEventListener('abort', stop);
      // Closes the connection when the consumer stops early, the stream ends or it broke.
      connection.abort();
    }
    failures = heard ? 0 : failures + 1;
    if (failures > retries) throw failure ?? new Error(`${stream.url}: the stream closed ${failures} times in a row without sending anything`);
    try {
      await sleep(failures === 0 ? reconnectMs : Math.max(reconnectMs, backoffMs(failures - 1)), signal);
    } catch {
      return; // aborted
    }
  }
}
