import type { Invocation } from './invocation.js';

/** A node that runs longer than this has its claim's events written while it runs, so listeners see it start. */
export const LATE_FLUSH_MS = 1_000;

/**
 * From now on, if the node is still running after LATE_FLUSH_MS, the events
 * gathered so far are appended meanwhile; a node that finishes sooner has
 * its start and its end written in one flush. `done` stops the timer and
 * rethrows a failed flush, outside the node's own error handling: a write
 * that failed fails the task (the message is redelivered), never the node.
 */
export function flushWhenLate(deps: Pick<Invocation, 'events' | 'requests'>): { done: () => Promise<void> } {
  let flushing: Promise<{ error: unknown } | undefined> | undefined;
  const timer = setTimeout(() => {
    flushing = deps.events.flush(deps.requests).then(
      () => undefined,
      (error: unknown) => ({ error }),
    );
  }, LATE_FLUSH_MS);
  return {
    done: async () => {
      clearTimeout(timer);
      const failed = await flushing;
      if (failed) throw failed.error;
    },
  };
}
