import type { Context } from 'aws-lambda';
import { IdempotencyKeyInvalidError, IdempotencyKeyRequiredError } from '../errors.js';
import type { HttpResult } from './types.js';

/** Specification: 1 to 255 visible ASCII characters. */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export function checkIdempotencyKey(value: string | undefined): string {
  if (value === undefined) throw new IdempotencyKeyRequiredError();
  if (!KEY_PATTERN.test(value)) throw new IdempotencyKeyInvalidError();
  return value;
}

export interface IdempotentCall {
  /** Who and where: a key is only ever compared within this scope. */
  accountId: string;
  /** The method and the path as asked (`POST /v2/runs/run_1/fork`): the same key on another resource is another request. */
  route: string;
  key: string;
  /** What was asked: the same key with another body is a conflict. */
  body: unknown;
}

/** What runs a write at most once per key (`runIdempotent`, lib/platform/http/idempotency.ts), as a route's contract takes it. */
export type RunIdempotent = (call: IdempotentCall, context: Context, execute: () => Promise<HttpResult>) => Promise<HttpResult>;
