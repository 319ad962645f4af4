import assert from 'node:assert/strict';
import type { Json } from './api.js';

/** An object `levels` deep: `{a: {a: … {text: 'deep'}}}`. */
export const nested = (levels: number): Json => {
  let value: Json = { text: 'deep' };
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
};

/** The 422 a value past the depth bound gets: one `too_deep` error naming the body field. */
export const assertTooDeep = (answer: { status: number; body: Json }, name: string): void => {
  assert.equal(answer.status, 422, JSON.stringify(answer.body));
  assert.equal(answer.body.code, 'validation_failed');
  assert.deepEqual(
    answer.body.errors.map((e: Json) => [e.name, e.location, e.code]),
    [[name, 'body', 'too_deep']],
  );
};
