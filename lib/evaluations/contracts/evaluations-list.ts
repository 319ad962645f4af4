import { defineEndpoint } from '#platform/http/contract.js';
import { ListEvaluationsQuery } from '../schemas.js';
import { EVALUATIONS_TAG } from './tags.js';

export const EvaluationsList = defineEndpoint({
  id: 'EvaluationsList',
  method: 'GET',
  path: '/v2/evaluations',
  handler: 'functions/evaluations/list.ts',
  auth: 'bearer',
  query: ListEvaluationsQuery,
  table: 'read',
  serviceKey: true,
  operationId: 'listEvaluations',
  summary: 'List evaluations',
  description:
    'The account’s evaluations, newest first, without their cases, optionally by `status`, paged with `limit` (1 to 100, default 20) and `cursor` (`page.next_cursor`); a cursor used with another `status` is 400 `cursor_filter_mismatch`.',
  tags: [EVALUATIONS_TAG],
  responses: () =>
    import('../openapi/evaluations-responses.js').then(({ EvaluationList }) => ({
      200: { description: 'A page of evaluations, newest first.', schema: EvaluationList },
      400: 'A bad parameter or cursor (`invalid_parameter`, `cursor_invalid`, `cursor_filter_mismatch`).',
    })),
});
