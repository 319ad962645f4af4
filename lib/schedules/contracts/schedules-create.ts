import { defineEndpoint } from '#platform/http/contract.js';
import { MAX_SCHEDULES_PER_ACCOUNT } from '../model.js';
import { CreateScheduleBody } from '../schemas.js';
import { SCHEDULES_TAG } from './tags.js';

export const SchedulesCreate = defineEndpoint({
  id: 'SchedulesCreate',
  method: 'POST',
  path: '/v1/schedules',
  handler: 'functions/schedules/create.ts',
  auth: 'bearer',
  body: CreateScheduleBody,
  idempotency: 'optional',
  table: 'readwrite',
  schedules: true,
  operationId: 'createSchedule',
  summary: 'Create a schedule',
  description: [
    'A schedule fires its `target` at each time of its `expression`: `cron(<minute> <hour> <day-of-month> <month> <day-of-week>)` read as wall-clock time in `timezone` (default `UTC`; daylight saving included: a time the clock skips fires at the first minute after the gap, a time it repeats fires once), or `rate(<n> minute|minutes|hour|hours|day|days)`, whose first firing is one period after the schedule is created. At most once a minute.',
    'Day-of-month and day-of-week cannot both be restricted (one of them must be `*`): crontab fires on either of them, EventBridge Scheduler, which fires schedules in AWS, takes only one, so such an expression is refused (422 naming `/expression`) rather than read two ways.',
    'Each firing starts a workflow request (`{workflow_version_id, entry_node_ids, payload?}`) or creates a run (`{harness_id, machine_id, input, if_busy?}`) whose `metadata` is `{schedule_id, scheduled_at}`, once per scheduled time however often it is delivered. The account pays for it and its limits apply as to any creation: a firing refused by them (a full usage window, the balance, the ceiling of work in progress, a busy machine under `if_busy: reject`) makes nothing, is not retried, and is recorded as `last_error`. A firing whose version, harness or machine has been deleted disables the schedule (`last_error.code` `target_not_found`).',
    'The target is checked now as a firing would check it: another account’s or an unknown version, entry nodes that are not the version’s, an unknown harness or machine are 422 naming the field under `/target`.',
    `An account has at most ${MAX_SCHEDULES_PER_ACCOUNT} schedules, exactly, also under concurrent creates: past it the answer is 409 \`schedule_limit_reached\`, whose problem document carries the \`limit\`. Deleting a schedule frees its place.`,
    'An `Idempotency-Key` header is optional; with one, a retry returns the first answer with `Idempotency-Replayed: true`.',
  ].join('\n\n'),
  tags: [SCHEDULES_TAG],
  responses: () =>
    import('../openapi/schedules-responses.js').then(({ ScheduleSchema, SCHEDULE_INVALID }) => ({
      201: { description: 'The schedule, with its `next_fire_at` (null when created disabled).', schema: ScheduleSchema },
      400: 'Not JSON, not an object, an unknown field (`invalid_json`, `invalid_body`, `unknown_field`), or a malformed Idempotency-Key (`idempotency_key_invalid`).',
      409: `The account has ${MAX_SCHEDULES_PER_ACCOUNT} schedules already (\`schedule_limit_reached\`; \`limit\` names the number); or the Idempotency-Key was reused with another body (\`idempotency_key_conflict\`), or is still in flight (\`idempotency_key_in_flight\`, with \`Retry-After\`).`,
      422: SCHEDULE_INVALID,
    })),
});
