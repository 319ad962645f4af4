import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { beforeEach, describe, test } from 'vitest';
import { parseAllowList } from '#net/address-guard.js';
import type { GuardedFetchOptions, GuardedResponse, OutboundRequest } from '#net/guarded-fetch.js';
import { ValidationError } from '#platform/errors.js';
import { Failure } from '#platform/failure.js';
import { deriveWebhookSecret } from '#platform/secrets/service-key.js';
import { processDelivery } from '#webhooks/deliver.js';
import type { DeliveryMessage } from '#webhooks/delivery-messages.js';
import { checkEndpointUrl } from '#webhooks/endpoint-url.js';
import { type AttemptRecord, firstDelivery, type WebhookDelivery, type WebhookEndpoint } from '#webhooks/model.js';
import { DEFAULT_RETRY_SCHEDULE_SECONDS, nextAttemptAt, retrySchedule, sqsDelaySeconds } from '#webhooks/schedule.js';
import { EVENT_FIXTURE, endpointFixture } from '../helpers/webhook-fixtures.js';

describe('the retry schedule', () => {
  test('5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h by default; WEBHOOK_RETRY_SCHEDULE_SECONDS replaces it; nonsense is refused', () => {
    assert.deepEqual(retrySchedule({}), [5, 300, 1800, 7200, 18000, 36000, 36000]);
    assert.deepEqual(retrySchedule({ WEBHOOK_RETRY_SCHEDULE_SECONDS: '1, 2,3' }), [1, 2, 3]);
    assert.throws(() => retrySchedule({ WEBHOOK_RETRY_SCHEDULE_SECONDS: '1,x' }), /WEBHOOK_RETRY_SCHEDULE_SECONDS/);
    const now = new Date(0);
    assert.equal(nextAttemptAt(DEFAULT_RETRY_SCHEDULE_SECONDS, 1, now)?.getTime(), 5_000);
    assert.equal(nextAttemptAt(DEFAULT_RETRY_SCHEDULE_SECONDS, 7, now)?.getTime(), 36_000_000);
    assert.equal(nextAttemptAt(DEFAULT_RETRY_SCHEDULE_SECONDS, 8, now), undefined, 'eight attempts, then failed');
  });

  test('SQS holds a message at most 900 s: a longer wait is the first leg of a chain', () => {
    assert.equal(sqsDelaySeconds(5_000, 0), 5);
    assert.equal(sqsDelaySeconds(7_200_000, 0), 900);
    assert.equal(sqsDelaySeconds(7_200_000, 7_200_000 - 1_500), 2);
    assert.equal(sqsDelaySeconds(0, 10_000), 0);
  });
});

const KEY = Buffer.from('k'.repeat(32));
const ENDPOINT: WebhookEndpoint = endpointFixture();
const EVENT = EVENT_FIXTURE;

function world(initial: Partial<WebhookDelivery> = {}) {
  // Near the real time: a Standard Webhooks verify refuses a webhook-timestamp 5 minutes away from now.
  let clock = Date.now();
  const state = {
    delivery: {
      ...firstDelivery(ENDPOINT.id, 'acc', { ...EVENT, type: 'run.completed' }, new Date(clock), null),
      next_attempt_at: null,
      created_at: 'c',
      ...initial,
    } as WebhookDelivery,
    endpoint: { ...ENDPOINT } as WebhookEndpoint | undefined,
    answers: [] as Array<number | Failure>,
    posted: [] as OutboundRequest[],
    options: [] as GuardedFetchOptions[],
    sent: [] as Array<{ message: DeliveryMessage; now: number }>,
  };
  const deps = {
    endpoints: {
      get: async () => state.endpoint,
      disableGone: async () => {
        state.endpoint = { ...state.endpoint!, disabled: true, disabled_reason: 'gone' };
      },
    },
    deliveries: {
      get: async () => ({ ...state.delivery }),
      async recordAttempt(seen: WebhookDelivery, attempt: number, record: AttemptRecord) {
        if (state.delivery.series !== seen.series || state.delivery.attempts !== attempt - 1 || state.delivery.status !== 'pending') return undefined;
        state.delivery = { ...state.delivery, ...record, attempts: attempt };
        return { ...state.delivery };
      },
      async fail(seen: WebhookDelivery, reason: string) {
        if (state.delivery.attempts !== seen.attempts) return undefined;
        state.delivery = { ...state.delivery, status: 'failed', last_error: reason, next_attempt_at: null };
        return { ...state.delivery };
      },
    },
    events: { get: async () => EVENT },
    send: async (message: DeliveryMessage, now?: Date) => {
      state.sent.push({ message, now: now!.getTime() });
    },
    serviceKey: { load: async () => KEY },
    async post(request: OutboundRequest, options: GuardedFetchOptions): Promise<GuardedResponse> {
      state.posted.push(request);
      state.options.push(options);
      const answer = state.answers.shift() ?? 200;
      if (answer instanceof Failure) throw answer;
      return { status: answer, statusText: '', url: new URL(request.url), method: 'POST', headers: {}, body: undefined };
    },
    schedule: () => DEFAULT_RETRY_SCHEDULE_SECONDS,
    now: () => new Date(clock),
  };
  const message = (overrides: Partial<DeliveryMessage> = {}): DeliveryMessage => ({
    delivery_id: state.delivery.id,
    endpoint_id: ENDPOINT.id,
    account_id: 'acc',
    series: state.delivery.series,
    attempt: state.delivery.attempts + 1,
    due_at: clock,
    ...overrides,
  });
  return { state, deps, message, advance: (ms: number) => (clock += ms), clock: () => clock };
}

describe('processDelivery', () => {
  let w: ReturnType<typeof world>;
  beforeEach(() => {
    w = world();
  });

  test('a 2xx delivers a signed POST of {type, timestamp, data} within 15 s', async () => {
    assert.equal(await processDelivery(w.deps, w.message()), 'delivered');
    const [request] = w.state.posted;
    const secret = deriveWebhookSecret(KEY, 'webhook-endpoint', ENDPOINT.id, 1);
    const verified = new Webhook(secret).verify(request!.body!.toString(), request!.headers as Record<string, string>);
    assert.deepEqual(verified, { type: 'run.completed', timestamp: EVENT.created_at, data: { id: 'run_1' } });
    assert.equal(request!.headers!['webhook-id'], EVENT.id);
    assert.equal(w.state.options[0]!.timeoutMs, 15_000);
    assert.deepEqual([w.state.delivery.status, w.state.delivery.attempts, w.state.delivery.last_status_code], ['delivered', 1, 200]);
    assert.deepEqual(w.state.sent, []);
  });

  test('after a rotation the signature verifies with the new and the replaced secret while the overlap lasts, then with the new one only', async () => {
    const secret = (version: number) => deriveWebhookSecret(KEY, 'webhook-endpoint', ENDPOINT.id, version);
    const verifies = (version: number, request: OutboundRequest) => {
      try {
        new Webhook(secret(version)).verify(request.body!.toString(), request.headers as Record<string, string>);
        return true;
      } catch {
        return false;
      }
    };
    w.state.endpoint = { ...ENDPOINT, secret_version: 3, previous_secret_version: 2, previous_valid_until: new Date(w.clock() + 60_000).toISOString() };
    assert.equal(await processDelivery(w.deps, w.message()), 'delivered');
    const during = w.state.posted[0]!;
    assert.deepEqual([verifies(3, during), verifies(2, during), verifies(1, during)], [true, true, false]);
    assert.equal(String(during.headers!['webhook-signature']).split(' ').length, 2);

    const after = world();
    after.state.endpoint = { ...ENDPOINT, secret_version: 3, previous_secret_version: 2, previous_valid_until: new Date(after.clock() - 1).toISOString() };
    await processDelivery(after.deps, after.message());
    const late = after.state.posted[0]!;
    assert.deepEqual([verifies(3, late), verifies(2, late)], [true, false]);
  });

  test('a failure is recorded before the next attempt’s message, due on the schedule; past 900 s the message is chained', async () => {
    w.state.answers.push(500, 500, 500);
    assert.equal(await processDelivery(w.deps, w.message()), 'retrying');
    assert.equal(w.state.sent[0]!.message.due_at - w.clock(), 5_000, 'the first retry after 5 s');
    w.advance(5_000);
    assert.equal(await processDelivery(w.deps, w.state.sent[0]!.message), 'retrying');
    assert.equal(w.state.delivery.attempts, 2);
    const next = w.state.sent[1]!.message;
    assert.equal(next.due_at - w.clock(), 300_000, 'the second retry after 5 min');
    w.state.sent.length = 0;
    w.advance(300_000);
    assert.equal(await processDelivery(w.deps, next), 'retrying');
    w.state.sent.length = 0;
    // The third retry is 30 min away: SQS holds it 900 s, it arrives early and is sent on with the rest.
    const third = w.state.delivery;
    assert.equal(Date.parse(third.next_attempt_at!) - w.clock(), 1_800_000);
    const far = w.message({ due_at: Date.parse(third.next_attempt_at!) });
    w.advance(900_000);
    assert.equal(await processDelivery(w.deps, far), 'chained');
    assert.equal(sqsDelaySeconds(w.state.sent[0]!.message.due_at, w.state.sent[0]!.now), 900);
    assert.equal(w.state.posted.length, 3, 'nothing posted early');
    w.advance(900_000);
    assert.equal(await processDelivery(w.deps, far), 'delivered');
    assert.equal(w.state.delivery.attempts, 4);
  });

  test('the eighth failure ends the series: failed, no further message', async () => {
    w = world({ attempts: 7, series_start: 0 });
    w.state.answers.push(503);
    assert.equal(await processDelivery(w.deps, w.message()), 'failed');
    assert.deepEqual([w.state.delivery.status, w.state.delivery.next_attempt_at, w.state.sent.length], ['failed', null, 0]);
  });

  test('a retried delivery’s schedule starts again from its series', async () => {
    w = world({ attempts: 8, series: 2, series_start: 8 });
    w.state.answers.push(500);
    assert.equal(await processDelivery(w.deps, w.message()), 'retrying');
    assert.equal(w.state.sent[0]!.message.due_at - w.clock(), 5_000);
  });

  test('a network error or a refused address is retried; its text is kept, with no status', async () => {
    w.state.answers.push(new Failure('ssrf_blocked', 'https://hooks.example/x: 10.0.0.1 is private', false));
    assert.equal(await processDelivery(w.deps, w.message()), 'retrying');
    assert.deepEqual([w.state.delivery.last_status_code, w.state.delivery.last_error], [null, 'ssrf_blocked: https://hooks.example/x: 10.0.0.1 is private']);
  });

  test('410 fails the delivery and disables the endpoint; a disabled or deleted endpoint ends the series unposted', async () => {
    w.state.answers.push(410);
    assert.equal(await processDelivery(w.deps, w.message()), 'failed');
    assert.deepEqual([w.state.endpoint?.disabled, w.state.delivery.status, w.state.delivery.last_status_code], [true, 'failed', 410]);
    w = world();
    w.state.endpoint = undefined;
    assert.equal(await processDelivery(w.deps, w.message()), 'failed');
    assert.deepEqual([w.state.posted.length, w.state.delivery.last_error], [0, 'The endpoint was deleted.']);
  });

  test('stale messages post nothing: another series, an ended delivery, an attempt recorded already', async () => {
    w = world({ series: 2, attempts: 3 });
    assert.equal(await processDelivery(w.deps, w.message({ series: 1 })), 'stale');
    w = world({ status: 'delivered', attempts: 1 });
    assert.equal(await processDelivery(w.deps, w.message({ attempt: 1 })), 'stale');
    w = world({ attempts: 2, next_attempt_at: null, status: 'pending' });
    assert.equal(await processDelivery(w.deps, w.message({ attempt: 1 })), 'stale');
    assert.equal(w.state.posted.length, 0);
  });

  test('a worker that died after recording an attempt: the message comes back and sends the next one, posting nothing', async () => {
    const due = new Date(Date.now() + 5_000).toISOString();
    w = world({ attempts: 1, last_status_code: 500, next_attempt_at: due });
    assert.equal(await processDelivery(w.deps, w.message({ attempt: 1 })), 'resent');
    assert.deepEqual([w.state.posted.length, w.state.sent[0]!.message.attempt, w.state.sent[0]!.message.due_at], [0, 2, Date.parse(due)]);
  });

  test('two handlers of one attempt: both may post (same webhook-id), one records, the other stops', async () => {
    const first = w.message();
    const racer = { ...w.state.delivery };
    assert.equal(await processDelivery(w.deps, first), 'delivered');
    w.deps.deliveries.get = async () => racer;
    assert.equal(await processDelivery(w.deps, first), 'raced');
    assert.deepEqual(new Set(w.state.posted.map((r) => r.headers!['webhook-id'])), new Set([EVENT.id]));
  });
});

describe('checkEndpointUrl', () => {
  const settings = (hosts = '', allowInsecure = false) => ({ allowInsecure, ...parseAllowList(hosts) });
  const resolveTo =
    (...addresses: string[]) =>
    async () =>
      addresses.map((address) => ({ address, family: 4 as const }));
  const refusal = async (url: string, s = settings(), resolve = resolveTo('93.184.216.34')) => {
    try {
      await checkEndpointUrl(url, s, resolve);
      return undefined;
    } catch (error) {
      assert.ok(error instanceof ValidationError);
      return error.options.errors?.map((e) => `${e.name} ${e.code}`)[0];
    }
  };

  test('https: to a public address passes; http:, credentials, private, loopback and metadata addresses are refused', async () => {
    assert.equal(await refusal('https://hooks.example/x'), undefined);
    assert.equal(await refusal('http://hooks.example/x'), '/url insecure_url');
    assert.equal(await refusal('https://u:p@hooks.example/x'), '/url invalid_url');
    assert.equal(await refusal('https://hooks.example/x', settings(), resolveTo('93.184.216.34', '10.1.2.3')), '/url url_not_allowed');
    assert.equal(await refusal('https://127.0.0.1/x'), '/url url_not_allowed');
    assert.equal(await refusal('https://169.254.169.254/x'), '/url url_not_allowed');
    assert.equal(await refusal('https://metadata.google.internal/x'), '/url url_not_allowed');
    assert.equal(
      await refusal('https://nowhere.invalid/x', settings(), async () => {
        throw Object.assign(new Error('x'), { code: 'ENOTFOUND' });
      }),
      '/url url_not_resolvable',
    );
  });

  test('the operator’s OUTBOUND_ALLOWED_HOSTS and OUTBOUND_ALLOW_INSECURE loosen it', async () => {
    assert.equal(await refusal('http://127.0.0.1:8080/x', settings('127.0.0.1', true)), undefined);
    assert.equal(await refusal('https://internal.example/x', settings('internal.example'), resolveTo('10.0.0.1')), undefined);
    assert.equal(await refusal('https://10.0.0.9/x', settings('10.0.0.0/8')), undefined);
  });
});
