import { KEEPALIVE_FRAME } from '#platform/http/streaming.js';

/** One `text/event-stream` reader, as a plain `fetch` client sees the stream. */
export interface Listener {
  // biome-ignore lint/suspicious/noExplicitAny: stream payloads, read field by field
  frames: Array<{ id?: string; json?: Record<string, any>; at: number }>;
  status: number;
  closed: boolean;
  error?: unknown;
  abort: AbortController;
  connectMs: number;
}

/** The `id:` and joined `data:` lines of one message (the text between blank lines). */
function parseMessage(block: string): { id?: string; data: string } {
  let id: string | undefined;
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('id:')) id = line.slice(3).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
  }
  return { ...(id !== undefined ? { id } : {}), data: data.join('\n') };
}

/** The keepalive's data as the service writes it (lib/platform/http/streaming.ts): not JSON, so not a frame. */
const KEEPALIVE_DATA = parseMessage(KEEPALIVE_FRAME.trimEnd()).data;

/** Opens the stream and collects its frames, each stamped with `Date.now()` when its chunk was read, until it ends or is aborted. */
export async function openListener(url: string, token: string): Promise<Listener> {
  const abort = new AbortController();
  const t0 = performance.now();
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' }, signal: abort.signal });
  const listener: Listener = { frames: [], status: response.status, closed: false, abort, connectMs: performance.now() - t0 };
  if (response.status !== 200 || !response.body) {
    listener.closed = true;
    listener.error = new Error(`listen answered ${response.status}: ${await response.text().catch(() => '')}`);
    return listener;
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  void (async () => {
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      const at = Date.now();
      buffer += decoder.decode(value, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const { id, data } = parseMessage(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (data && data !== KEEPALIVE_DATA) listener.frames.push({ ...(id !== undefined ? { id } : {}), json: JSON.parse(data), at });
      }
    }
  })()
    .catch((error: unknown) => {
      if (!abort.signal.aborted) listener.error = error;
    })
    .finally(() => {
      listener.closed = true;
    });
  return listener;
}
