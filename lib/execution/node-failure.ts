/** A node failure with a code the retry policy can name in `retry_on`. */
export class NodeFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly retryable = true,
  ) {
    super(message);
    this.name = 'NodeFailure';
  }
}
