import type { Invocation } from './invocation.js';

/** A node that runs longer than this has its claim's events written while it runs, so listeners see it start. */
export const LATE_FLUSH_MS = 1_000;

/**
 * From now on, if the node is still running when the oldest event gathered
 * so far is LATE_FLUSH_MS old (its claim's, or an older one the task was
 * handed with: emit.ts), the events are appended meanwhile; a node that
 * finishes sooner has its start and its end written in one flush. `done` stops the timer and
 * rethrows a failed flush, outside the node's own error handling: a write
 * that failed fails the task (the message is redelivered), never the node.
 */
export function flushWhenLate(deps: Pick<Invocation, 'events' | 'requests'>): { done: () => Promise<void> } {
  let flushing: Promise<{ error: unknown } | undefined> | undefined;
  const timer = setTimeout(
    () => {
      flushing = deps.events.flush(deps.requests).then(
        () => undefined,
        (error: unknown) => ({ error }),
      );
    },
    Math.max(0, LATE_FLUSH_MS - (Date.now() - (deps.events.oldest() ?? Date.now()))),
  );
  return {
    done: async () => {
      clearTimeout(timer);
      const failed = await flushing;
      if (failed) throw failed.error;
    },
  };
}
