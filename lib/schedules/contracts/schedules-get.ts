import { defineEndpoint } from '#platform/http/contract.js';
import { ScheduleIdParams } from './params.js';
import { SCHEDULES_TAG } from './tags.js';

export const SchedulesGet = defineEndpoint({
  id: 'SchedulesGet',
  method: 'GET',
  path: '/v1/schedules/{id}',
  handler: 'functions/schedules/get.ts',
  auth: 'bearer',
  params: ScheduleIdParams,
  table: 'read',
  operationId: 'getSchedule',
  summary: 'Get a schedule',
  description:
    'The schedule with its next firing (`next_fire_at`), the latest firing that made something (`last_fired_at`) and why the latest one made nothing, if it did not (`last_error`).',
  tags: [SCHEDULES_TAG],
  responses: () =>
    import('../openapi/schedules-responses.js').then(({ ScheduleSchema, SCHEDULE_NOT_FOUND }) => ({
      200: { description: 'The schedule.', schema: ScheduleSchema },
      404: SCHEDULE_NOT_FOUND,
    })),
});
