import { retryAfterSeconds } from './retry-after.js';

/** What the client sends requests with: `fetch`, or one given to `createClient`. */
export type Fetch = (request: Request) => Promise<Response>;

/** A bearer token, or a function answering one (called before each attempt, so it may renew it). */
export type Token = string | (() => string | Promise<string>);

/** Backoff before the n-th retry (n from 0): up to 250 ms × 2ⁿ, at most 8 s, the upper half drawn at random. */
export const BACKOFF_BASE_MS = 250;
export const BACKOFF_MAX_MS = 8_000;
/** A `Retry-After` longer than this is not waited out: the answer is the caller's (a `ProblemError` with `retryAfterSeconds`). */
export const MAX_RETRY_AFTER_SECONDS = 60;

/** Methods that may be repeated as they are (RFC 9110): any other (POST, PATCH) only with an `Idempotency-Key`. */
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/** Whether sending `request` again cannot do its work twice (specification, Retry rules). */
export const mayRepeat = (request: Request): boolean => IDEMPOTENT_METHODS.has(request.method) || request.headers.has('Idempotency-Key');

export function backoffMs(retry: number, random: () => number = Math.random): number {
  const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** retry);
  return ceiling / 2 + (random() * ceiling) / 2;
}

/** Resolves after `ms`; rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const abort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', abort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', abort, { once: true });
  });
}

/** 409 `idempotency_key_in_flight`: the first request with this key (often this call's own earlier attempt) is still being answered; asked again after `Retry-After`, the service replays its answer. */
async function keyInFlight(response: Response): Promise<boolean> {
  if (response.status !== 409) return false;
  try {
    const body: unknown = await response.clone().json();
    return typeof body === 'object' && body !== null && (body as { code?: unknown }).code === 'idempotency_key_in_flight';
  } catch {
    return false;
  }
}

/** How long to wait before asking again after `response`; undefined when it is the answer. */
async function waitAfter(response: Response, retry: number): Promise<number | undefined> {
  if (!(response.status === 429 || response.status >= 500 || (await keyInFlight(response)))) return undefined;
  const retryAfter = retryAfterSeconds(response.headers.get('Retry-After'));
  if (retryAfter === undefined) return backoffMs(retry);
  return retryAfter <= MAX_RETRY_AFTER_SECONDS ? retryAfter * 1000 : undefined;
}

/**
 * `fetch` with the bearer token and the specification's retry rules: a network failure, a 5xx
 * or a 429 is asked again, up to `retries` more times, when the request may be repeated (GET,
 * HEAD, OPTIONS, PUT, DELETE, or any request carrying an `Idempotency-Key`, which each attempt
 * repeats); it waits `Retry-After` when the answer gives one (at most
 * {@link MAX_RETRY_AFTER_SECONDS}), else backs off exponentially with jitter. Other 4xx are
 * answers, never retried, but for 409 `idempotency_key_in_flight`. A POST or PATCH without a key
 * is sent once.
 */
export function retryingFetch(options: { fetch?: Fetch | undefined; token?: Token | undefined; retries: number }): Fetch {
  const { token, retries } = options;
  // Called as a plain function: a browser's `fetch` refuses to be called as another object's method.
  const send: Fetch = options.fetch ?? ((request) => globalThis.fetch(request));
  const authorized = async (request: Request): Promise<Request> => {
    if (token !== undefined && !request.headers.has('Authorization')) {
      request.headers.set('Authorization', `Bearer ${typeof token === 'function' ? await token() : token}`);
    }
    return request;
  };
  return async (request) => {
    const repeatable = mayRepeat(request);
    for (let retry = 0; ; retry++) {
      const last = !repeatable || retry >= retries;
      // Each attempt but the last sends a copy, so the body can be sent again.
      const attempt = await authorized(last ? request : request.clone());
      let wait: number | undefined;
      let response: Response | undefined;
      try {
        response = await send(attempt);
      } catch (error) {
        if (last || request.signal.aborted) throw error;
        wait = backoffMs(retry);
      }
      if (response) {
        if (last) return response;
        wait = await waitAfter(response, retry);
        if (wait === undefined) return response;
        await response.body?.cancel().catch(() => {});
      }
      await sleep(wait ?? 0, request.signal);
    }
  };
}
