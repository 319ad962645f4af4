import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, test, vi } from 'vitest';
import * as z from 'zod/mini';
import { formatToken } from '#accounts/api-tokens.js';
import { bearerAuth } from '#accounts/bearer-auth.js';
import type { TokensRepo } from '#accounts/tokens-repository.js';
import { defineEndpoint } from '#platform/http/contract.js';
import { httpHandler } from '#platform/http/handler.js';
import { json } from '#platform/http/responses.js';
import { logger } from '#platform/observability/logger.js';
import { METRIC, METRICS_NAMESPACE } from '#platform/observability/metric-names.js';
import { countMetric } from '#platform/observability/metrics.js';
import { queueWorker } from '#platform/queue-worker.js';
import { makeHandler as makeMint } from '../../functions/api-tokens/create.js';
import { httpEvent } from '../helpers/http-event.js';
import { type EmfDocument, publishedMetrics, recordMetrics, writtenLines } from '../helpers/metrics.js';

const event = httpEvent;
const lambdaContext = (awsRequestId: string) =>
  ({ awsRequestId, functionName: 'fn', invokedFunctionArn: 'arn:aws:lambda:eu-west-1:1:function:fn', getRemainingTimeInMillis: () => 1000 }) as Context;

const route = { method: 'POST', path: '/v2/x', handler: 'test.ts', table: 'none', undocumented: 'a test' } as const;
const PUBLIC = defineEndpoint({ ...route, id: 'TestPublic', auth: 'none' });
const BEARER = defineEndpoint({ ...route, id: 'TestBearer', auth: 'bearer' });

/** A queue whose every JSON object is a message. */
const ANY_MESSAGE = { kind: 'test message', schema: z.looseObject({}) };

type LogLine = Record<string, unknown>;
const logLines = async (fn: () => Promise<unknown>): Promise<LogLine[]> =>
  (await writtenLines(fn)).map((line) => JSON.parse(line) as LogLine).filter((line) => 'level' in line);

describe('log lines', () => {
  // The unit tier runs at CRITICAL (vitest.config.ts); the scoped loggers are children of the root and take its level.
  beforeAll(() => logger().setLogLevel('INFO'));
  afterAll(() => logger().setLogLevel('CRITICAL'));

  test('after bearer auth a line carries the request id and the account id, and the next invocation’s lines carry neither', async () => {
    const accountId = randomUUID();
    const tokens = {
      authenticate: async () => ({ token: { id: 'tok_1' }, account: { id: accountId, plan: 'pro', suspended: false } }),
    } as unknown as TokensRepo;
    const handled = async () => {
      logger().info('handled');
      return json(200, {});
    };
    const bearer = httpHandler(BEARER, { auth: bearerAuth(tokens, { admit: async () => undefined }) }, handled);
    const open = httpHandler(PUBLIC, { auth: 'none' }, handled);

    const first = await logLines(() =>
      bearer(event({ headers: { authorization: `Bearer ${formatToken(accountId)}`, 'x-request-id': 'req-1' } }), lambdaContext('lambda-1')),
    );
    const second = await logLines(() => open(event({ headers: { 'x-request-id': 'req-2' } }), lambdaContext('lambda-2')));

    assert.equal(first.length, 1);
    assert.deepEqual(
      [first[0]!.message, first[0]!.request_id, first[0]!.account_id, first[0]!.function_request_id],
      ['handled', 'req-1', accountId, 'lambda-1'],
    );
    assert.equal(second.length, 1);
    assert.deepEqual([second[0]!.request_id, second[0]!.function_request_id], ['req-2', 'lambda-2']);
    assert.ok(!('account_id' in second[0]!), 'the account of the invocation before');
    const outside = await logLines(async () => logger().info('between invocations'));
    assert.ok(!('request_id' in outside[0]!) && !('account_id' in outside[0]!));
  });

  test('the account a session cookie names is on the line of a failure after it', async () => {
    const accountId = randomUUID();
    const handler = makeMint({
      accounts: { get: async () => ({ id: accountId, plan: 'pro', balance_micro_usd: 2_000_000, suspended: false }) } as never,
      sessions: { get: async () => ({ account_id: accountId, expires_at: '', created_at: '' }) } as never,
      tokens: {
        create: async () => {
          throw new Error('table gone');
        },
      } as never,
      rates: { admit: async () => undefined },
      baseUrl: 'https://svc.example',
    });

    const lines = await logLines(() =>
      handler(event({ cookies: ['session=abc'], body: '{"duration_minutes":5}', headers: { 'x-request-id': 'req-3' } }), lambdaContext('l-3')),
    );

    const failure = lines.find((line) => line.message === 'unhandled error');
    assert.deepEqual([failure?.request_id, failure?.account_id], ['req-3', accountId]);
  });

  test('each record of a batch logs with its own message id, though the records run at the same time', async () => {
    const record = (messageId: string, delayMs: number) => ({ messageId, body: JSON.stringify({ delayMs }) }) as SQSRecord;
    const worker = queueWorker({ kind: 'test message', schema: z.looseObject({ delayMs: z.number() }) }, async ({ delayMs }) => {
      logger().info('received');
      await sleep(delayMs);
      logger().info('done');
    });

    const lines = await logLines(() => worker({ Records: [record('m-1', 100), record('m-2', 1)] } as SQSEvent, lambdaContext('l-4')));

    assert.deepEqual(
      lines.map((line) => `${line.message} ${line.request_id} ${line.function_request_id}`),
      ['received m-1 l-4', 'received m-2 l-4', 'done m-2 l-4', 'done m-1 l-4'],
    );
  });

  test('a record whose message names its account logs with that account; one that names none, without', async () => {
    const record = (messageId: string, body: unknown) => ({ messageId, body: JSON.stringify(body) }) as SQSRecord;
    const worker = queueWorker(ANY_MESSAGE, async () => logger().info('seen'));

    const lines = await logLines(() =>
      worker({ Records: [record('m-5', { account_id: 'acc-5' }), record('m-6', { run_id: 'r' })] } as SQSEvent, lambdaContext('l-5')),
    );

    assert.deepEqual(lines.map((line) => [line.request_id, line.account_id]).sort(), [
      ['m-5', 'acc-5'],
      ['m-6', undefined],
    ]);
  });
});

describe('metrics', () => {
  afterEach(() => vi.unstubAllEnvs());

  /** A module of its own: its Powertools instance reads the environment when it is built. */
  const freshMetrics = async () => {
    vi.resetModules();
    return import('#platform/observability/metrics.js');
  };

  test('what was counted is published as EMF in the namespace, one document per dimension set, with the service dimension', async () => {
    recordMetrics();
    const metrics = await freshMetrics();
    metrics.countMetric(METRIC.runsEnded, { status: 'failed' });
    metrics.countMetric(METRIC.runsEnded, { status: 'failed' });
    metrics.countMetric(METRIC.nodeExecutions, { status: 'failed' }, 3);
    metrics.countMetric(METRIC.runsStarted);

    const lines = await writtenLines(metrics.flushMetrics);

    const documents = lines.map((line) => JSON.parse(line) as EmfDocument);
    assert.equal(documents.length, 2);
    const [failed, plain] = documents as [EmfDocument, EmfDocument];
    assert.deepEqual(failed._aws.CloudWatchMetrics, [
      {
        Namespace: METRICS_NAMESPACE,
        Dimensions: [['service', 'status']],
        Metrics: [
          { Name: 'RunsEnded', Unit: 'Count' },
          { Name: 'NodeExecutions', Unit: 'Count' },
        ],
      },
    ]);
    assert.deepEqual([failed.service, failed.status, failed.RunsEnded, failed.NodeExecutions], ['workflow-service', 'failed', 2, 3]);
    assert.deepEqual(plain._aws.CloudWatchMetrics[0]?.Dimensions, [['service']]);
    assert.equal(plain.RunsStarted, 1);
    assert.deepEqual(await writtenLines(metrics.flushMetrics), [], 'published once; an invocation that counted nothing writes nothing, not even a warning');
  });

  test('outside Lambda nothing is counted or written; POWERTOOLS_METRICS_DISABLED=true keeps them out in Lambda too', async () => {
    vi.stubEnv('AWS_LAMBDA_FUNCTION_NAME', undefined);
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', undefined);
    const local = await freshMetrics();
    local.countMetric(METRIC.workflowRequestsStarted);
    assert.deepEqual(await writtenLines(local.flushMetrics), []);

    vi.stubEnv('AWS_LAMBDA_FUNCTION_NAME', 'fn');
    const inLambda = await freshMetrics();
    inLambda.countMetric(METRIC.workflowRequestsStarted);
    assert.equal((await writtenLines(inLambda.flushMetrics)).length, 1, 'in Lambda they are on');

    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'true');
    const disabled = await freshMetrics();
    disabled.countMetric(METRIC.workflowRequestsStarted);
    assert.deepEqual(await writtenLines(disabled.flushMetrics), []);
  });

  test('the HTTP stack and the SQS batch wrapper publish what their invocation counted when it ends, even when it fails', async () => {
    recordMetrics();
    await publishedMetrics();
    const failing = httpHandler(PUBLIC, { auth: 'none' }, async () => {
      countMetric(METRIC.workflowRequestsStarted);
      throw new Error('after the count');
    });
    const answered = await writtenLines(async () => assert.equal((await failing(event(), lambdaContext('l-5'))).statusCode, 500));
    assert.equal(answered.map((line) => JSON.parse(line) as EmfDocument).filter((line) => line.WorkflowRequestsStarted === 1).length, 1);

    const worker = queueWorker(ANY_MESSAGE, async (_message, r) => {
      countMetric(METRIC.nodeExecutions, { status: 'completed' });
      if (r.messageId === 'm-bad') throw new Error('bad record');
    });
    const records = ['m-1', 'm-bad', 'm-2'].map((messageId) => ({ messageId, body: '{}' }) as SQSRecord);
    let response: unknown;
    const written = await writtenLines(async () => {
      response = await worker({ Records: records } as SQSEvent, lambdaContext('l-6'));
    });
    assert.deepEqual(response, { batchItemFailures: [{ itemIdentifier: 'm-bad' }] });
    const documents = written.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => '_aws' in line);
    assert.deepEqual(
      documents.map((d) => [d.status, d.NodeExecutions]),
      [['completed', 3]],
      'one document for the batch',
    );
  });
});
