import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterAll, beforeAll, test } from 'vitest';
import { eventBridgeTimer, SCHEDULER_VARIABLES } from '#schedules/eventbridge.js';

// EventBridge Scheduler's REST-JSON API as a local server: what the real SDK sends, and how it reads refusals.
interface Seen {
  method: string;
  path: string;
  body: Record<string, unknown> | undefined;
}
const seen: Seen[] = [];
let answers: Array<{ status: number; type?: string }> = [];
let server: Server;
let endpoint = '';

const read = async (request: IncomingMessage): Promise<string> => {
  let text = '';
  for await (const chunk of request) text += chunk;
  return text;
};

beforeAll(async () => {
  server = createServer(async (request, response) => {
    const text = await read(request);
    // The SDK's own idempotency token (a query parameter of DELETE) differs every call.
    const url = new URL(request.url!, 'http://x');
    url.searchParams.delete('clientToken');
    seen.push({ method: request.method!, path: `${url.pathname}${url.search}`, body: text ? JSON.parse(text) : undefined });
    const { status, type } = answers.shift() ?? { status: 200 };
    response.writeHead(status, { 'content-type': 'application/json', ...(type ? { 'x-amzn-errortype': type } : {}) });
    response.end(JSON.stringify(type ? { Message: `${type} from the test server` } : { ScheduleArn: 'arn:aws:scheduler:eu-west-1:123456789012:schedule/g/s' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const env = () => ({
  [SCHEDULER_VARIABLES.group]: 'g',
  [SCHEDULER_VARIABLES.target]: 'arn:aws:sqs:eu-west-1:123456789012:WorkflowService-schedule-firings',
  [SCHEDULER_VARIABLES.role]: 'arn:aws:iam::123456789012:role/scheduler',
  AWS_REGION: 'eu-west-1',
  AWS_ENDPOINT_URL_SCHEDULER: endpoint,
});

test('over the wire: an absent schedule is created after the update’s 404, with the whole schedule in the body; a delete’s 404 is done', async () => {
  answers = [{ status: 404, type: 'ResourceNotFoundException' }, { status: 200 }, { status: 404, type: 'ResourceNotFoundException' }];
  const timer = eventBridgeTimer(env());

  await timer.put({ id: 'sch_1', expression: 'cron(0 9 * * 1-5)', timezone: 'Europe/Berlin', enabled: true });
  await timer.remove('sch_1');

  assert.deepEqual(
    seen.map(({ method, path }) => `${method} ${path}`),
    ['PUT /schedules/sch_1', 'POST /schedules/sch_1', 'DELETE /schedules/sch_1?groupName=g'],
  );
  const { ClientToken, ...created } = seen[1]!.body!;
  assert.equal(typeof ClientToken, 'string', 'the SDK adds its own idempotency token');
  assert.deepEqual(created, {
    GroupName: 'g',
    ScheduleExpression: 'cron(0 9 ? * MON-FRI *)',
    ScheduleExpressionTimezone: 'Europe/Berlin',
    State: 'ENABLED',
    FlexibleTimeWindow: { Mode: 'OFF' },
    Target: {
      Arn: env().SCHEDULER_TARGET_ARN,
      RoleArn: env().SCHEDULER_ROLE_ARN,
      Input: '{"schedule_id":"sch_1","scheduled_at":"<aws.scheduler.scheduled-time>"}',
      RetryPolicy: { MaximumEventAgeInSeconds: 3600, MaximumRetryAttempts: 10 },
    },
  });
  const { ClientToken: _, ...updated } = seen[0]!.body!;
  assert.deepEqual(updated, created, 'the update said the same');
});

test('over the wire: a refusal other than not-found reaches the caller, and nothing is created', async () => {
  seen.length = 0;
  answers = [{ status: 400, type: 'ValidationException' }];

  await assert.rejects(
    eventBridgeTimer(env()).put({ id: 'sch_2', expression: 'rate(5 minutes)', timezone: 'UTC', enabled: false }),
    (error: Error) => error.name === 'ValidationException',
  );
  assert.deepEqual(
    seen.map(({ method }) => method),
    ['PUT'],
  );
});
