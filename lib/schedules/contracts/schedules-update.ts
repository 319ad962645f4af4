import { defineEndpoint } from '#platform/http/contract.js';
import { UpdateScheduleBody } from '../schemas.js';
import { ScheduleIdParams } from './params.js';
import { SCHEDULES_TAG } from './tags.js';

export const SchedulesUpdate = defineEndpoint({
  id: 'SchedulesUpdate',
  method: 'PATCH',
  path: '/v1/schedules/{id}',
  handler: 'functions/schedules/update.ts',
  auth: 'bearer',
  params: ScheduleIdParams,
  body: UpdateScheduleBody,
  idempotency: 'optional',
  table: 'readwrite',
  schedules: true,
  operationId: 'updateSchedule',
  summary: 'Change a schedule',
  description: [
    'Changes the fields given: `name`, `expression`, `timezone`, `target` (checked as at creation, and replaced whole), `enabled`. `enabled: false` stops its firings (`next_fire_at` becomes null); `enabled: true` starts them again from now, also on a schedule a deleted target disabled. A new expression or time zone computes `next_fire_at` afresh, and a rate counts its periods from now. An empty body changes nothing.',
    'An `Idempotency-Key` header is optional; with one, a retry answers the first answer. Repeating a change is harmless.',
  ].join('\n\n'),
  tags: [SCHEDULES_TAG],
  responses: () =>
    import('../openapi/schedules-responses.js').then(({ ScheduleSchema, SCHEDULE_NOT_FOUND, SCHEDULE_INVALID }) => ({
      200: { description: 'The schedule as changed.', schema: ScheduleSchema },
      400: 'Not JSON, not an object, an unknown field (`invalid_json`, `invalid_body`, `unknown_field`), or a malformed Idempotency-Key (`idempotency_key_invalid`).',
      404: SCHEDULE_NOT_FOUND,
      409: 'Idempotency-Key reused with another body (`idempotency_key_conflict`), or still in flight (`idempotency_key_in_flight`, with `Retry-After`).',
      422: SCHEDULE_INVALID,
    })),
});
