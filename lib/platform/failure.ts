/**
 * A failure of work in progress (a node, a model call, an expression), with
 * a stable code a retry policy can name in `retry_on` and whether trying
 * again can help. It carries no HTTP status: the engine records it on the
 * node, and only the HTTP edge decides what a caller sees.
 */
export class Failure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly retryable = true,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}
