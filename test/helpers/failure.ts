import assert from 'node:assert/strict';
import { Failure } from '#platform/failure.js';

/**
 * Asserts that the promise rejects with a `Failure` (the family the engine
 * records on a node) of this code and retryability; returns the failure.
 */
export async function fails(promise: Promise<unknown>, code: string, retryable: boolean): Promise<Failure> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof Failure, `not a Failure: ${String(error)}`);
    assert.equal(error.code, code, error.message);
    assert.equal(error.retryable, retryable, `${code} retryable`);
    return error;
  }
  assert.fail(`expected ${code}, got success`);
}
