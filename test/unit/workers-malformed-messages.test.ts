import assert from 'node:assert/strict';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { QUEUES } from '#app/queues.js';
import { logger } from '#platform/observability/logger.js';
import { makeHandler as agentTasks } from '../../functions/workers/agent-tasks.js';
import { makeHandler as evaluationRuns } from '../../functions/workers/evaluation-runs.js';
import { makeHandler as evaluationRunsDeadLetter } from '../../functions/workers/evaluation-runs-dead-letter.js';
import { makeHandler as nodeTasks } from '../../functions/workers/node-tasks.js';
import { makeHandler as nodeTasksDeadLetter } from '../../functions/workers/node-tasks-dead-letter.js';
import { makeHandler as runEnded } from '../../functions/workers/run-ended.js';
import { makeHandler as runTasks } from '../../functions/workers/run-tasks.js';
import { makeHandler as runTasksDeadLetter } from '../../functions/workers/run-tasks-dead-letter.js';
import { makeHandler as scheduleFirings } from '../../functions/workers/schedule-firings.js';
import { makeHandler as scheduleFiringsDeadLetter } from '../../functions/workers/schedule-firings-dead-letter.js';
import { makeHandler as webhookDeliveries } from '../../functions/workers/webhook-deliveries.js';
import { makeHandler as webhookDeliveriesDeadLetter } from '../../functions/workers/webhook-deliveries-dead-letter.js';
import { makeHandler as webhookEvents } from '../../functions/workers/webhook-events.js';
import { makeHandler as webhookEventsDeadLetter } from '../../functions/workers/webhook-events-dead-letter.js';
import { writtenLines } from '../helpers/metrics.js';

/**
 * Every worker of functions/workers validates its queue's messages before
 * its feature sees one: a malformed message is a batch item failure with
 * one error line and touches none of the worker's dependencies, while a
 * message as its senders write it reaches them (here, fakes that throw).
 */
type Deps = Record<string, unknown>;
type MakeHandler = (deps: never) => (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

const HANDLERS: Record<string, MakeHandler> = {
  'node-tasks': nodeTasks,
  'agent-tasks': agentTasks,
  'node-tasks-dead-letter': nodeTasksDeadLetter,
  'run-tasks': runTasks,
  'run-tasks-dead-letter': runTasksDeadLetter,
  'run-ended': runEnded,
  'evaluation-runs': evaluationRuns,
  'evaluation-runs-dead-letter': evaluationRunsDeadLetter,
  'webhook-events': webhookEvents,
  'webhook-events-dead-letter': webhookEventsDeadLetter,
  'webhook-deliveries': webhookDeliveries,
  'webhook-deliveries-dead-letter': webhookDeliveriesDeadLetter,
  'schedule-firings': scheduleFirings,
  'schedule-firings-dead-letter': scheduleFiringsDeadLetter,
};

const WORKERS: Array<{ worker: string; kind: string; makeHandler: MakeHandler; valid: unknown; invalid: unknown }> = [
  ...['node-tasks', 'agent-tasks', 'node-tasks-dead-letter'].map((worker) => ({
    worker,
    kind: 'node task',
    makeHandler: HANDLERS[worker]!,
    valid: { request_id: 'req-1', node_id: 'a', node_type: 'agent', ready: true, seq: 3, input: { parent: { n: 1 } } },
    invalid: { request_id: 'req-1' },
  })),
  ...['run-tasks', 'run-tasks-dead-letter'].map((worker) => ({
    worker,
    kind: 'run task',
    makeHandler: HANDLERS[worker]!,
    valid: { run_id: 'run-1', machine_size: 'small', absent: 2 },
    invalid: { run_id: 'run-1', machine_size: 'huge' },
  })),
  {
    worker: 'run-ended',
    kind: 'run ended',
    makeHandler: runEnded,
    valid: { run_id: 'run-1', account_id: 'acc-1', status: 'cancelled' },
    invalid: { run_id: 'run-1', account_id: 'acc-1', status: 'running' },
  },
  ...['evaluation-runs', 'evaluation-runs-dead-letter'].map((worker) => ({
    worker,
    kind: 'evaluation task',
    makeHandler: HANDLERS[worker]!,
    valid: { evaluation_id: 'ev-1', account_id: 'acc-1', absent: 1 },
    invalid: { evaluation_id: 'ev-1' },
  })),
  ...['webhook-events', 'webhook-events-dead-letter'].map((worker) => ({
    worker,
    kind: 'webhook notice',
    makeHandler: HANDLERS[worker]!,
    valid: { account_id: 'acc-1', event_id: 'evt-1', event_type: 'run.completed', created_at: '2025-01-01T00:00:00.000Z' },
    invalid: { account_id: 'acc-1', event_id: 'evt-1', event_type: 'run.completed', created_at: 1 },
  })),
  ...['webhook-deliveries', 'webhook-deliveries-dead-letter'].map((worker) => ({
    worker,
    kind: 'webhook delivery',
    makeHandler: HANDLERS[worker]!,
    valid: { delivery_id: 'd-1', endpoint_id: 'we-1', account_id: 'acc-1', series: 1, attempt: 2, due_at: 1_700_000_000_000 },
    invalid: { delivery_id: 'd-1', endpoint_id: 'we-1', account_id: 'acc-1', series: '1', attempt: 2, due_at: 0 },
  })),
  ...['schedule-firings', 'schedule-firings-dead-letter'].map((worker) => ({
    worker,
    kind: 'schedule firing',
    makeHandler: HANDLERS[worker]!,
    valid: { schedule_id: 'sch_1', scheduled_at: '2027-03-01T10:00:00Z' },
    invalid: { schedule_id: 'sch_1', scheduled_at: 'tomorrow' },
  })),
];

/** Dependencies that note every use (a property read, a call) and fail every call: whatever the worker reaches, it reaches through them. */
function fakeDeps(touched: string[]): Deps {
  const fake = (path: string): unknown =>
    new Proxy(() => undefined, {
      get: (_target, key) => {
        if (key === 'then') return undefined;
        touched.push(`${path}.${String(key)}`);
        return fake(`${path}.${String(key)}`);
      },
      apply: () => {
        touched.push(path);
        throw new Error(`fake ${path}`);
      },
    });
  return fake('deps') as Deps;
}

const context = { awsRequestId: 'l-1', functionName: 'fn', getRemainingTimeInMillis: () => 60_000 } as Context;
const record = (messageId: string, body: string) => ({ messageId, body, attributes: { ApproximateReceiveCount: '1' } }) as SQSRecord;

describe('each worker reports a malformed message as a batch item failure', () => {
  beforeAll(() => logger().setLogLevel('INFO'));
  afterAll(() => logger().setLogLevel('CRITICAL'));

  test.each(WORKERS)('$worker ($kind)', async ({ makeHandler, kind, valid, invalid }) => {
    const touched: string[] = [];
    const handler = makeHandler(fakeDeps(touched) as never);

    let response: SQSBatchResponse | undefined;
    const lines = await writtenLines(async () => {
      response = await handler({ Records: [record('m-not-json', '{"truncated":'), record('m-invalid', JSON.stringify(invalid))] } as SQSEvent, context);
    });

    assert.deepEqual(response, { batchItemFailures: [{ itemIdentifier: 'm-not-json' }, { itemIdentifier: 'm-invalid' }] });
    assert.deepEqual(touched, [], 'a malformed message reaches nothing');
    const malformed = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.message_kind === kind);
    assert.deepEqual(malformed.map((line) => [line.level, line.message_id]).sort(), [
      ['ERROR', 'm-invalid'],
      ['ERROR', 'm-not-json'],
    ]);

    const reached = await writtenLines(() => handler({ Records: [record('m-valid', JSON.stringify(valid))] } as SQSEvent, context));
    assert.ok(touched.length > 0, 'a message as its senders write it reaches the worker’s dependencies');
    assert.ok(!reached.some((line) => line.includes('malformed queue message')), reached.join('\n'));
  });

  test('the table holds every worker the queues name', () => {
    const named = new Set(QUEUES.flatMap((q) => [q.worker, q.deadLetterWorker]).filter((entry) => entry !== undefined));
    assert.deepEqual([...named].map((entry) => entry.replace(/^functions\/workers\/(.*)\.ts$/, '$1')).sort(), Object.keys(HANDLERS).sort());
  });
});
