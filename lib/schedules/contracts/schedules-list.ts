import { defineEndpoint } from '#platform/http/contract.js';
import { ListSchedulesQuery } from '../schemas.js';
import { SCHEDULES_TAG } from './tags.js';

export const SchedulesList = defineEndpoint({
  id: 'SchedulesList',
  method: 'GET',
  path: '/v1/schedules',
  handler: 'functions/schedules/list.ts',
  auth: 'bearer',
  query: ListSchedulesQuery,
  table: 'read',
  serviceKey: true,
  operationId: 'listSchedules',
  summary: 'List schedules',
  description: 'The account’s schedules, newest first, paged with `limit` and `cursor`.',
  tags: [SCHEDULES_TAG],
  responses: () =>
    import('../openapi/schedules-responses.js').then(({ ListSchedulesResponse }) => ({
      200: { description: 'A page of schedules.', schema: ListSchedulesResponse },
      400: '`limit` out of range (`invalid_parameter`), or a bad cursor (`cursor_invalid`, `cursor_filter_mismatch`).',
    })),
});
