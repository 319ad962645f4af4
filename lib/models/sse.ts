/**
 * The data of each event of a `text/event-stream` body, in order: the part
 * of the Server-Sent Events format that chat completions use (`data:`
 * lines, comments, blank lines between events). Written here rather than
 * taken from the OpenAI SDK: its stream ends quietly on an abort, where a
 * model call must reject, and the SDK's client is too heavy to bundle
 * (openai.ts).
 */
export async function* eventData(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  const lineOf = function* (line: string): Generator<string> {
    if (line === '') {
      if (data.length) yield data.join('\n');
      data = [];
    } else if (line.startsWith('data:')) data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
    // Anything else (comments, `event:`, `id:`, `retry:`) carries nothing a chat completion needs.
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      signal?.throwIfAborted();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      // A CR at the end may be the first half of a CRLF split across reads: its line waits for the next.
      const end = !done && buffer.endsWith('\r') ? buffer.length - 1 : buffer.length;
      const lines = buffer.slice(0, end).split(/\r\n|\r|\n/);
      buffer = lines.pop()! + buffer.slice(end);
      for (const line of lines) yield* lineOf(line);
      if (done) break;
    }
    // A last event without its blank line is still the server's: lenient, as browsers are not, since nothing follows it.
    yield* lineOf(buffer);
    yield* lineOf('');
  } finally {
    // Stopped early (the [DONE] event, an error, an abort): the connection is let go at once.
    reader.cancel().catch(() => {});
  }
}
