/** The message must come back later (another delivery holds the node now): the worker reports it as a batch item failure. */
export class RetryLater extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'RetryLater';
  }
}
