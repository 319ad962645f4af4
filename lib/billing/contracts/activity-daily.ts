import { defineEndpoint } from '#platform/http/contract.js';
import { DailyActivityQuery } from '../schemas.js';
import { ACTIVITY_TAG } from './tags.js';

export const ActivityDaily = defineEndpoint({
  id: 'ActivityDaily',
  method: 'GET',
  path: '/v1/activity/daily',
  handler: 'functions/activity/daily.ts',
  auth: 'bearer',
  query: DailyActivityQuery,
  table: 'read',
  operationId: 'getDailyActivity',
  summary: "The caller's activity per UTC day",
  description:
    'One entry per UTC day, the last `days` days ending today, oldest first, with no gap: a day without activity has zeros. `request_count` counts workflow requests created that day; `node_count` the node executions of the workflow requests that ended that day (every node execution of a request is settled by the time it ends); `run_count` runs created that day; `total_cost` the usage cost of the day in USD, plan and extra funded.',
  tags: [ACTIVITY_TAG],
  responses: () =>
    import('../openapi/billing-responses.js').then(({ DailyActivitySchema }) => ({
      200: { description: 'The days.', schema: DailyActivitySchema },
      400: '`days` is not an integer from 1 to 366 (`invalid_parameter`).',
    })),
});
