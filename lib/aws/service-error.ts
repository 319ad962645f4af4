/**
 * An error answered by an AWS service, shaped like the SDK's exceptions so
 * callers keep branching on `name` (`ConditionalCheckFailedException`,
 * `TransactionCanceledException` with its `CancellationReasons`, ...). It is
 * infrastructure, not part of the API's error family: unhandled, it becomes
 * the opaque 500.
 */
export class AwsServiceError extends Error {
  /** HTTP status of the answer. */
  readonly $status: number;
  [field: string]: unknown;

  constructor(name: string, message: string, status: number, fields: Record<string, unknown> = {}) {
    super(message || name);
    Object.assign(this, fields);
    this.name = name;
    this.$status = status;
  }

  /** JSON protocol errors name their type in `__type` (`com.amazonaws.dynamodb.v20120810#X`) or in `x-amzn-errortype`. */
  static fromResponse(status: number, text: string, headers: Headers): AwsServiceError {
    let body: Record<string, unknown> = {};
    try {
      body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      body = { message: text.slice(0, 200) };
    }
    const type = String(body.__type ?? headers.get('x-amzn-errortype') ?? `Http${status}`);
    const name = type.split('#').pop()!.split(':')[0]!;
    const { __type: _type, message, Message, ...fields } = body;
    return new AwsServiceError(name, String(message ?? Message ?? ''), status, fields);
  }
}

const RETRYABLE_NAMES = new Set([
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'RequestThrottled',
  'TransactionInProgressException',
]);

/** Throttling, 5xx, and failures to get an answer at all (network, per-attempt timeout). */
export function isRetryable(error: unknown): boolean {
  if (error instanceof AwsServiceError) return error.$status >= 500 || error.$status === 429 || RETRYABLE_NAMES.has(error.name);
  if (!(error instanceof Error)) return false;
  return error.name === 'TimeoutError' || (error instanceof TypeError && /fetch failed|terminated|socket/i.test(error.message));
}
