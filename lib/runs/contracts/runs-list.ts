import { defineEndpoint } from '#platform/http/contract.js';
import { ListRunsQuery } from '../schemas.js';
import { RUNS_TAG } from './tags.js';

export const RunsList = defineEndpoint({
  id: 'RunsList',
  method: 'GET',
  path: '/v2/runs',
  handler: 'functions/runs/list.ts',
  auth: 'bearer',
  query: ListRunsQuery,
  table: 'read',
  serviceKey: true,
  operationId: 'listRuns',
  summary: 'List runs',
  description:
    'The account’s runs, newest first, optionally by `status` and `harness_id`, paged with `limit` (1 to 100, default 20) and `cursor` (`page.next_cursor`); a cursor used with other filters is 400 `cursor_filter_mismatch`.',
  tags: [RUNS_TAG],
  responses: () =>
    import('../openapi/runs-responses.js').then(({ RunList }) => ({
      200: { description: 'A page of runs, newest first.', schema: RunList },
      400: 'A bad parameter or cursor (`invalid_parameter`, `cursor_invalid`, `cursor_filter_mismatch`).',
    })),
});
