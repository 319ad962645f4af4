import { defineEndpoint } from '#platform/http/contract.js';
import { ScheduleIdParams } from './params.js';
import { SCHEDULES_TAG } from './tags.js';

export const SchedulesDelete = defineEndpoint({
  id: 'SchedulesDelete',
  method: 'DELETE',
  path: '/v1/schedules/{id}',
  handler: 'functions/schedules/delete.ts',
  auth: 'bearer',
  params: ScheduleIdParams,
  table: 'readwrite',
  schedules: true,
  operationId: 'deleteSchedule',
  summary: 'Delete a schedule',
  description:
    'It fires no more, and its place counts no more against the limit of 50; requests and runs it made go on. A delete that failed part-way is finished by repeating it (204); a schedule that is gone answers 404.',
  tags: [SCHEDULES_TAG],
  responses: () =>
    import('../openapi/schedules-responses.js').then(({ SCHEDULE_NOT_FOUND }) => ({
      204: { description: 'Deleted.' },
      404: SCHEDULE_NOT_FOUND,
    })),
});
