import assert from 'node:assert/strict';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, test } from 'vitest';
import * as z from 'zod';
import { DomainError } from '#platform/errors.js';
import { limitParam } from '#platform/http/common-schemas.js';
import { jsonPointer, parseBody, parseQuery } from '#platform/http/parse.js';
import { STATUS_OF } from '#platform/http/problem.js';

const event = (body?: string, query?: Record<string, string>, base64 = false) =>
  ({ body, isBase64Encoded: base64, queryStringParameters: query }) as unknown as APIGatewayProxyEventV2;

const Body = z.strictObject({ name: z.string().min(1), tags: z.array(z.string()).optional(), 'a/b': z.number().optional() });

function problemOf(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('did not throw');
}

describe('body parsing', () => {
  test('valid bodies parse, base64 included; an absent body is {}', () => {
    assert.deepEqual(parseBody(event('{"name":"x"}'), Body).value, { name: 'x' });
    assert.deepEqual(parseBody(event(Buffer.from('{"name":"y"}').toString('base64'), undefined, true), Body).value, { name: 'y' });
    assert.equal(problemOf(() => parseBody(event(undefined), Body)).kind, 'invalid');
  });

  test('each fault maps to its code', () => {
    assert.equal(problemOf(() => parseBody(event('{'), Body)).code, 'invalid_json');
    assert.equal(problemOf(() => parseBody(event('[]'), Body)).code, 'invalid_body');
    assert.equal(problemOf(() => parseBody(event('1'), Body)).code, 'invalid_body');
    const unknown = problemOf(() => parseBody(event('{"name":"x","zzz":1}'), Body));
    assert.equal(STATUS_OF[unknown.kind], 400);
    assert.equal(unknown.code, 'unknown_field');
    assert.deepEqual(
      unknown.options.errors?.map((e) => e.name),
      ['/zzz'],
    );
  });

  test('validation_failed lists one entry per field with JSON Pointers', () => {
    const error = problemOf(() => parseBody(event('{"tags":[1],"a/b":"x"}'), Body));
    assert.equal(STATUS_OF[error.kind], 422);
    assert.equal(error.code, 'validation_failed');
    assert.deepEqual(
      error.options.errors?.map((e) => [e.name, e.code, e.location]),
      [
        ['/name', 'required', 'body'],
        ['/tags/0', 'invalid_type', 'body'],
        ['/a~1b', 'invalid_type', 'body'],
      ],
    );
  });

  test('JSON Pointer escapes ~ and /', () => {
    assert.equal(jsonPointer(['a~b', 'c/d', 0]), '/a~0b/c~1d/0');
  });
});

describe('query parsing', () => {
  const Query = z.object({ limit: limitParam(100, 20) });
  test('coerces and defaults', () => {
    assert.deepEqual(parseQuery(event(undefined, { limit: '5' }), Query), { limit: 5 });
    assert.deepEqual(parseQuery(event(undefined), Query), { limit: 20 });
  });
  test('out of range is 400 invalid_parameter naming the parameter', () => {
    for (const limit of ['0', '101', '1.5', 'x']) {
      const error = problemOf(() => parseQuery(event(undefined, { limit }), Query));
      assert.equal(STATUS_OF[error.kind], 400);
      assert.equal(error.code, 'invalid_parameter');
      assert.deepEqual(
        error.options.errors?.map((e) => [e.name, e.location]),
        [['limit', 'query']],
      );
      assert.match(error.options.errors?.[0]?.reason ?? '', /integer from 1 to 100/);
    }
  });
});
