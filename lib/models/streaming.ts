/**
 * The pieces the local models stream a text in: one a word, each with the
 * whitespace after it, and the first with any before it too, so that they
 * join back into the text exactly. Text without a word is one piece.
 */
export function wordPieces(text: string): string[] {
  return text.match(/\s*\S+\s*/g) ?? (text ? [text] : []);
}

/**
 * Waits `ms`, or rejects with the signal's reason as soon as it aborts. On
 * the global timers, so that tests can run it on a fake clock.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The items of `source` until the signal aborts, which rejects with its
 * reason at once, between items or while one is awaited: the SDK's own
 * abort of the connection under an event stream is not relied on.
 */
export async function* untilAborted<T>(source: AsyncIterable<T>, signal?: AbortSignal): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  let stop = () => {};
  const aborted = new Promise<never>((_, reject) => {
    if (!signal) return;
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    stop = () => signal.removeEventListener('abort', onAbort);
  });
  // Handled here so that an abort while no item is awaited is not an unhandled rejection; the race still sees it.
  aborted.catch(() => {});
  try {
    for (;;) {
      const next = await Promise.race([iterator.next(), aborted]);
      if (next.done) return;
      yield next.value;
    }
  } finally {
    stop();
    // Not awaited: a source stuck in its next item would hold the rejection back.
    void iterator.return?.()?.catch(() => {});
  }
}
