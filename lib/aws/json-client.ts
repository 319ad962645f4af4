import { AwsClient } from 'aws4fetch';
import { AwsServiceError, isRetryable } from './service-error.js';
import { envCredentials, type CredentialProvider } from './credentials.js';

/**
 * A caller for the AWS JSON 1.0 protocol (DynamoDB, SQS): one signed POST per
 * operation. The AWS SDK clients cost about 90 ms of module loading on every
 * cold start (3.8x a hello-world function on their own); this costs about 1 ms.
 * SigV4 signing is aws4fetch's; what is ours is the protocol: the target
 * header, error decoding and the retry policy.
 */
export interface JsonClientOptions {
  /** Signing name and endpoint prefix: `dynamodb`, `sqs`. */
  service: string;
  /** `X-Amz-Target` prefix: `DynamoDB_20120810`, `AmazonSQS`. */
  targetPrefix: string;
  region: string;
  /** Overrides `https://<service>.<region>.amazonaws.com` (DynamoDB Local, fauxqs, LocalStack). */
  endpoint?: string;
  credentials?: CredentialProvider;
  /** Attempts per call, the first included (the SDK's standard mode uses 3). */
  maxAttempts?: number;
  /** Per-attempt limit, so a stalled connection is retried rather than waited on until the Lambda deadline. */
  attemptTimeoutMs?: number;
  fetch?: typeof fetch;
}

export type JsonCall = <T = Record<string, unknown>>(operation: string, input: object, signal?: AbortSignal) => Promise<T>;

const BACKOFF_BASE_MS = 25;
const BACKOFF_CAP_MS = 2_000;

export function jsonClient(options: JsonClientOptions): JsonCall {
  const url = (options.endpoint ?? `https://${options.service}.${options.region}.amazonaws.com`).replace(/\/?$/, '/');
  const credentials = options.credentials ?? envCredentials;
  const maxAttempts = options.maxAttempts ?? 4;
  const attemptTimeoutMs = options.attemptTimeoutMs ?? 10_000;
  // Signing keys are derived once per day and secret; the cache is this client's own.
  const signingCache = new Map<string, ArrayBuffer>();

  return async <T>(operation: string, input: object, signal?: AbortSignal): Promise<T> => {
    const body = JSON.stringify(input);
    for (let attempt = 1; ; attempt++) {
      try {
        const creds = await credentials();
        const signer = new AwsClient({ ...creds, service: options.service, region: options.region, cache: signingCache, retries: 0 });
        const request = await signer.sign(url, {
          method: 'POST',
          headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': `${options.targetPrefix}.${operation}` },
          body,
        });
        const timeout = AbortSignal.timeout(attemptTimeoutMs);
        const response = await (options.fetch ?? fetch)(request, { signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
        const text = await response.text();
        if (response.ok) return (text ? JSON.parse(text) : {}) as T;
        throw AwsServiceError.fromResponse(response.status, text, response.headers);
      } catch (error) {
        if (signal?.aborted || attempt >= maxAttempts || !isRetryable(error)) throw error;
        // Full jitter: concurrent callers that failed together spread out.
        await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt)));
      }
    }
  };
}
