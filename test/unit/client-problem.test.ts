import assert from 'node:assert/strict';
import { createClient, ProblemError } from '@workflow-service/client';
import { describe, test } from 'vitest';

// How the typed client (clients/typescript) turns a non-2xx answer into a ProblemError.

const answering = (response: Response) => createClient({ baseUrl: 'http://service.test', token: 'wsk_x', fetch: async () => response, retries: 0 });

async function problemOf(response: Response, call: (api: ReturnType<typeof answering>) => Promise<unknown>): Promise<ProblemError> {
  try {
    await call(answering(response));
  } catch (error) {
    assert.ok(error instanceof ProblemError, `not a ProblemError: ${error}`);
    return error;
  }
  assert.fail('the call did not fail');
}

const getRun = (api: ReturnType<typeof answering>) => api.GET('/v2/runs/{id}', { params: { path: { id: 'run_x' } } });

describe('ProblemError', () => {
  test('a problem document gives its fields', async () => {
    const body = {
      type: 'https://errors.example/validation_failed',
      title: 'Unprocessable Content',
      status: 422,
      detail: 'The body is not valid.',
      code: 'validation_failed',
      trace_id: 'trace-1',
      errors: [{ name: '/machine_id', location: 'body', reason: 'No such machine.', code: 'not_found' }],
    };
    const error = await problemOf(
      new Response(JSON.stringify(body), { status: 422, headers: { 'Content-Type': 'application/problem+json', 'X-Request-Id': 'req-9' } }),
      (api) => api.POST('/v2/runs', { body: { harness_id: 'h_1', input: 'x' } }),
    );
    assert.ok(error instanceof Error);
    assert.equal(error.name, 'ProblemError');
    assert.equal(error.status, 422);
    assert.equal(error.code, 'validation_failed');
    assert.equal(error.title, 'Unprocessable Content');
    assert.equal(error.detail, 'The body is not valid.');
    assert.deepEqual(error.errors, body.errors);
    assert.deepEqual(error.body, body);
    assert.equal(error.requestId, 'req-9', 'the X-Request-Id answered');
    assert.equal(error.retryAfterSeconds, undefined);
    assert.equal(error.message, '422 validation_failed: The body is not valid.');
  });

  test("without X-Request-Id the problem's trace_id is the request id", async () => {
    const body = { type: 't', title: 'Not Found', status: 404, detail: 'No such run.', code: 'not_found', trace_id: 'trace-2' };
    const error = await problemOf(new Response(JSON.stringify(body), { status: 404, headers: { 'Content-Type': 'application/problem+json' } }), getRun);
    assert.equal(error.code, 'not_found');
    assert.equal(error.requestId, 'trace-2');
  });

  test('the {message} body of a v1 token call gets the code of its status', async () => {
    for (const [status, code] of [
      [401, 'unauthorized'],
      [403, 'forbidden'],
      [404, 'not_found'],
      [400, 'invalid_body'],
      [422, 'validation_failed'],
      [429, 'rate_limited'],
      [500, 'internal_error'],
    ] as const) {
      const message = { message: `refused with ${status}` };
      const error = await problemOf(new Response(JSON.stringify(message), { status, headers: { 'Content-Type': 'application/json' } }), (api) =>
        api.POST('/v1/api-tokens', { body: { name: 'laptop' } }),
      );
      assert.equal(error.status, status);
      assert.equal(error.code, code);
      assert.equal(error.detail, message.message);
      assert.deepEqual(error.body, message);
    }
  });

  test('Retry-After, in seconds or as a date, and the quota document’s retry_after_seconds', async () => {
    const quota = {
      code: 'usage_window_exceeded',
      error: 'usage_window_exceeded',
      retry_after_seconds: 7200,
      status: 429,
      title: 'Too Many Requests',
      detail: 'full',
    };
    const fromHeader = await problemOf(
      new Response(JSON.stringify(quota), { status: 429, headers: { 'Content-Type': 'application/problem+json', 'Retry-After': '7000' } }),
      getRun,
    );
    assert.equal(fromHeader.retryAfterSeconds, 7000);
    const fromBody = await problemOf(new Response(JSON.stringify(quota), { status: 429, headers: { 'Content-Type': 'application/problem+json' } }), getRun);
    assert.equal(fromBody.retryAfterSeconds, 7200);
    const at = new Date(Date.now() + 120_000).toUTCString();
    const fromDate = await problemOf(new Response(null, { status: 429, headers: { 'Retry-After': at } }), getRun);
    assert.ok(fromDate.retryAfterSeconds! >= 119 && fromDate.retryAfterSeconds! <= 120, String(fromDate.retryAfterSeconds));
    assert.equal(fromDate.code, 'rate_limited');
    assert.equal(fromDate.body, undefined);
  });

  test('a body that is not JSON is kept as text, and the status names the code', async () => {
    const error = await problemOf(new Response('<html>bad gateway</html>', { status: 502, headers: { 'Content-Type': 'text/html' } }), getRun);
    assert.equal(error.status, 502);
    assert.equal(error.code, 'upstream_unavailable');
    assert.equal(error.title, 'Bad Gateway');
    assert.equal(error.body, '<html>bad gateway</html>');
    assert.equal(error.detail, '<html>bad gateway</html>');
  });

  test('ProblemError.from reads a response not read yet', async () => {
    const error = await ProblemError.from(
      new Response(JSON.stringify({ code: 'event_cursor_expired', status: 410, title: 'Gone', detail: 'Start again.' }), { status: 410 }),
    );
    assert.equal(error.code, 'event_cursor_expired');
    assert.equal(error.detail, 'Start again.');
  });
});
