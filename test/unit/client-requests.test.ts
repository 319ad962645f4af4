import assert from 'node:assert/strict';
import { createClient, ProblemError } from '@workflow-service/client';
import { afterEach, describe, test, vi } from 'vitest';

// The typed client (clients/typescript) against a fake fetch: credentials, Idempotency-Keys and the
// specification's retry rules. Its streams: client-streams.test.ts; its errors: client-problem.test.ts.

interface Seen {
  method: string;
  url: string;
  headers: Headers;
  body: string;
  credentials: Request['credentials'];
}
type Answer = Response | Error;

/** A fetch that answers `answers` in order and records every request it is sent. */
function fakeFetch(...answers: Answer[]) {
  const seen: Seen[] = [];
  const fetch = async (request: Request): Promise<Response> => {
    seen.push({
      method: request.method,
      url: request.url,
      headers: new Headers(request.headers),
      body: await request.text(),
      credentials: request.credentials,
    });
    const answer = answers.shift();
    if (!answer) throw new Error(`no answer left for ${request.method} ${request.url}`);
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return { fetch, seen };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });
const problem = (status: number, code: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ type: `https://errors.example/${code}`, title: 'Problem', status, detail: `because ${code}`, code, trace_id: 'req-1' }), {
    status,
    headers: { 'Content-Type': 'application/problem+json', ...headers },
  });

const RUN = {
  id: 'run_1',
  status: 'running',
  harness_id: 'h_1',
  machine_id: 'mch_1',
  chat_id: null,
  input: 'hi',
  output: null,
  failure: null,
  usage: { input_tokens: 0, output_tokens: 0, cost_micro_usd: 0 },
  metadata: null,
  created_at: '2026-01-01T00:00:00.000Z',
  started_at: null,
  completed_at: null,
};
const BASE = 'http://service.test';
const createRun = (api: ReturnType<typeof createClient>, key?: string) =>
  api.POST('/v2/runs', { body: { harness_id: 'h_1', machine_id: 'mch_1', input: 'hi' }, ...(key ? { params: { header: { 'Idempotency-Key': key } } } : {}) });

/** The error a call rejects with. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail('the call did not fail');
}

afterEach(() => {
  vi.useRealTimers();
});

describe('calls', () => {
  test('a call answers the success body and the response; a 204 answers undefined', async () => {
    const { fetch, seen } = fakeFetch(json(200, { data: [RUN], page: { has_more: false, next_cursor: null } }), new Response(null, { status: 204 }));
    const api = createClient({ baseUrl: `${BASE}/`, fetch });
    const { data, response } = await api.GET('/v2/runs', { params: { query: { limit: 20, status: 'running' } } });
    assert.deepEqual(data.data, [RUN]);
    assert.equal(response.status, 200);
    assert.equal(seen[0]!.url, `${BASE}/v2/runs?limit=20&status=running`);
    const deleted = await api.DELETE('/v1/hooks/{id}', { params: { path: { id: 'hk 1' } } });
    assert.equal(deleted.data, undefined);
    assert.equal(seen[1]!.url, `${BASE}/v1/hooks/hk%201`);
  });

  test('the token is sent as a bearer credential: a string, or a function asked before each attempt', async () => {
    const plain = fakeFetch(json(200, { tokens: [] }));
    await createClient({ baseUrl: BASE, fetch: plain.fetch, token: 'wsk_plain' }).GET('/v1/api-tokens');
    assert.equal(plain.seen[0]!.headers.get('Authorization'), 'Bearer wsk_plain');

    let minted = 0;
    const renewing = fakeFetch(problem(503, 'unavailable'), json(200, { tokens: [] }));
    const api = createClient({ baseUrl: BASE, fetch: renewing.fetch, token: async () => `wsk_${++minted}`, retries: 1 });
    vi.useFakeTimers();
    const call = api.GET('/v1/api-tokens');
    await vi.runAllTimersAsync();
    await call;
    assert.deepEqual(
      renewing.seen.map((s) => s.headers.get('Authorization')),
      ['Bearer wsk_1', 'Bearer wsk_2'],
    );

    const anonymous = fakeFetch(json(200, { status: 'ok' }));
    await createClient({ baseUrl: BASE, fetch: anonymous.fetch }).GET('/healthz');
    assert.equal(anonymous.seen[0]!.headers.has('Authorization'), false);
  });

  test('credentials are passed to fetch (the console signs in with its session cookie)', async () => {
    const { fetch, seen } = fakeFetch(json(200, { account_id: 'acc_1' }));
    const api = createClient({ baseUrl: BASE, fetch, credentials: 'include' });
    await api.POST('/v1/auth/login', { body: { email: 'a@example.com', password: 'pw' } });
    assert.equal(seen[0]!.credentials, 'include');
    assert.deepEqual(JSON.parse(seen[0]!.body), { email: 'a@example.com', password: 'pw' });
  });

  test('retries must be a whole number', () => {
    assert.throws(() => createClient({ baseUrl: BASE, retries: -1 }), TypeError);
    assert.throws(() => createClient({ baseUrl: BASE, retries: 1.5 }), TypeError);
  });
});

describe('Idempotency-Key', () => {
  test('each call of an operation that takes one sends a fresh key', async () => {
    const { fetch, seen } = fakeFetch(json(201, RUN), json(201, RUN));
    const api = createClient({ baseUrl: BASE, fetch });
    const { data } = await createRun(api);
    assert.equal(data.id, 'run_1');
    await createRun(api);
    const [first, second] = seen.map((s) => s.headers.get('Idempotency-Key'));
    assert.match(first!, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.notEqual(first, second);
  });

  test('a call retried after a network failure, a 5xx and a 429 sends the same key and the same body each time', async () => {
    vi.useFakeTimers();
    const { fetch, seen } = fakeFetch(new TypeError('fetch failed'), problem(502, 'upstream_unavailable'), problem(429, 'rate_limited'), json(201, RUN));
    const call = createRun(createClient({ baseUrl: BASE, fetch, retries: 3 }));
    await vi.runAllTimersAsync();
    assert.equal((await call).data.id, 'run_1');
    assert.equal(seen.length, 4);
    assert.equal(new Set(seen.map((s) => s.headers.get('Idempotency-Key'))).size, 1);
    assert.equal(new Set(seen.map((s) => s.body)).size, 1);
    assert.deepEqual(JSON.parse(seen[3]!.body), { harness_id: 'h_1', machine_id: 'mch_1', input: 'hi' });
  });

  test("the caller's own key is sent, and repeated on retries", async () => {
    vi.useFakeTimers();
    const { fetch, seen } = fakeFetch(problem(500, 'internal_error'), json(201, RUN));
    const call = createRun(createClient({ baseUrl: BASE, fetch }), 'my-key-1');
    await vi.runAllTimersAsync();
    await call;
    assert.deepEqual(
      seen.map((s) => s.headers.get('Idempotency-Key')),
      ['my-key-1', 'my-key-1'],
    );
  });

  test('an operation whose document takes no key gets none, and such a POST is never retried', async () => {
    const { fetch, seen } = fakeFetch(problem(503, 'unavailable'), json(201, {}));
    const api = createClient({ baseUrl: BASE, fetch });
    const error = await rejection(api.POST('/v1/workflows', { body: { name: 'wf' } }));
    assert.ok(error instanceof ProblemError);
    assert.equal(error.status, 503);
    assert.equal(seen.length, 1);
    assert.equal(seen[0]!.headers.has('Idempotency-Key'), false);

    const network = fakeFetch(new TypeError('fetch failed'), json(201, {}));
    const failed = await rejection(createClient({ baseUrl: BASE, fetch: network.fetch }).POST('/v1/workflows', { body: { name: 'wf' } }));
    assert.ok(failed instanceof TypeError);
    assert.equal(network.seen.length, 1);
  });

  test('409 idempotency_key_in_flight is asked again after its Retry-After, with the same key', async () => {
    vi.useFakeTimers();
    const { fetch, seen } = fakeFetch(problem(409, 'idempotency_key_in_flight', { 'Retry-After': '1' }), json(201, RUN, { 'Idempotency-Replayed': 'true' }));
    const call = createRun(createClient({ baseUrl: BASE, fetch }));
    await vi.advanceTimersByTimeAsync(999);
    assert.equal(seen.length, 1);
    await vi.advanceTimersByTimeAsync(1);
    assert.equal((await call).response.headers.get('Idempotency-Replayed'), 'true');
    assert.equal(seen[0]!.headers.get('Idempotency-Key'), seen[1]!.headers.get('Idempotency-Key'));
  });
});

describe('retries', () => {
  test('a GET is retried after network failures and 5xx, `retries` more times, then the last failure is thrown', async () => {
    vi.useFakeTimers();
    const ok = fakeFetch(new TypeError('fetch failed'), problem(500, 'internal_error'), json(200, { status: 'ok' }));
    const call = createClient({ baseUrl: BASE, fetch: ok.fetch }).GET('/healthz');
    await vi.runAllTimersAsync();
    assert.deepEqual((await call).data, { status: 'ok' });
    assert.equal(ok.seen.length, 3);

    const down = fakeFetch(problem(503, 'unavailable'), problem(503, 'unavailable'), problem(502, 'upstream_unavailable'), json(200, {}));
    const failing = rejection(createClient({ baseUrl: BASE, fetch: down.fetch, retries: 2 }).GET('/healthz'));
    await vi.runAllTimersAsync();
    const error = await failing;
    assert.ok(error instanceof ProblemError);
    assert.equal(error.status, 502);
    assert.equal(down.seen.length, 3);

    const once = fakeFetch(problem(503, 'unavailable'), json(200, {}));
    assert.ok((await rejection(createClient({ baseUrl: BASE, fetch: once.fetch, retries: 0 }).GET('/healthz'))) instanceof ProblemError);
    assert.equal(once.seen.length, 1);
  });

  test('the backoff grows exponentially, with jitter, from a quarter of a second', async () => {
    vi.useFakeTimers();
    vi.spyOn(Math, 'random').mockReturnValue(1);
    const { fetch, seen } = fakeFetch(problem(500, 'internal_error'), problem(500, 'internal_error'), json(200, {}));
    const call = createClient({ baseUrl: BASE, fetch }).GET('/healthz');
    await vi.advanceTimersByTimeAsync(249);
    assert.equal(seen.length, 1);
    await vi.advanceTimersByTimeAsync(1);
    assert.equal(seen.length, 2);
    await vi.advanceTimersByTimeAsync(499);
    assert.equal(seen.length, 2);
    await vi.advanceTimersByTimeAsync(1);
    await call;
    assert.equal(seen.length, 3);
    vi.restoreAllMocks();
  });

  test('a 429 waits Retry-After, in seconds or as an HTTP date', async () => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2026-01-01T00:00:00Z'));
    const { fetch, seen } = fakeFetch(
      problem(429, 'rate_limited', { 'Retry-After': '2' }),
      problem(429, 'rate_limited', { 'Retry-After': 'Thu, 01 Jan 2026 00:00:05 GMT' }),
      json(200, { data: [], page: { has_more: false, next_cursor: null } }),
    );
    const call = createClient({ baseUrl: BASE, fetch }).GET('/v2/runs');
    await vi.advanceTimersByTimeAsync(1_999);
    assert.equal(seen.length, 1, 'not before Retry-After');
    await vi.advanceTimersByTimeAsync(1);
    assert.equal(seen.length, 2);
    await vi.advanceTimersByTimeAsync(2_999); // now 00:00:04.999
    assert.equal(seen.length, 2, 'not before the date');
    await vi.advanceTimersByTimeAsync(1);
    assert.deepEqual((await call).data.data, []);
    assert.equal(seen.length, 3);
  });

  test('a Retry-After past a minute is not waited out: the 429 is thrown with it', async () => {
    const { fetch, seen } = fakeFetch(
      new Response(JSON.stringify({ code: 'usage_window_exceeded', status: 429, title: 'Too Many Requests', detail: 'full', retry_after_seconds: 3600 }), {
        status: 429,
        headers: { 'Content-Type': 'application/problem+json', 'Retry-After': '3600' },
      }),
    );
    const error = await rejection(createClient({ baseUrl: BASE, fetch }).GET('/v2/runs'));
    assert.ok(error instanceof ProblemError);
    assert.equal(error.code, 'usage_window_exceeded');
    assert.equal(error.retryAfterSeconds, 3600);
    assert.equal(seen.length, 1);
  });

  test.each([400, 401, 403, 404, 406, 409, 410, 422])('a %i is the answer: never retried', async (status) => {
    const { fetch, seen } = fakeFetch(problem(status, 'refused'), json(200, {}));
    const error = await rejection(createClient({ baseUrl: BASE, fetch, retries: 5 }).GET('/v2/runs/{id}', { params: { path: { id: 'run_1' } } }));
    assert.ok(error instanceof ProblemError);
    assert.equal(error.status, status);
    assert.equal(seen.length, 1);
  });

  test('the signal aborts a call while it waits to retry', async () => {
    vi.useFakeTimers();
    const { fetch, seen } = fakeFetch(problem(429, 'rate_limited', { 'Retry-After': '30' }), json(200, {}));
    const abort = new AbortController();
    const call = rejection(createClient({ baseUrl: BASE, fetch }).GET('/healthz', { signal: abort.signal }));
    await vi.advanceTimersByTimeAsync(1_000);
    abort.abort();
    const error = await call;
    assert.ok(error instanceof Error);
    assert.equal(error.name, 'AbortError');
    await vi.advanceTimersByTimeAsync(60_000);
    assert.equal(seen.length, 1);
  });
});
