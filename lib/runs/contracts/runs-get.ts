import { defineEndpoint } from '#platform/http/contract.js';
import { RunIdParams } from './params.js';
import { RUNS_TAG } from './tags.js';

export const RunsGet = defineEndpoint({
  id: 'RunsGet',
  method: 'GET',
  path: '/v2/runs/{id}',
  handler: 'functions/runs/get.ts',
  auth: 'bearer',
  params: RunIdParams,
  table: 'read',
  operationId: 'getRun',
  summary: 'Get a run',
  description:
    'The run as it is now: its status, its `output` once it completed, its `failure` once it failed (`code`, `message` for a person, `retryable`), and what it used so far (`usage`). Its events, one per step, are in `GET /v2/runs/{id}/events`.',
  tags: [RUNS_TAG],
  responses: () =>
    import('../openapi/runs-responses.js').then(({ RunSchema, RUN_NOT_FOUND }) => ({
      200: { description: 'The run.', schema: RunSchema },
      404: RUN_NOT_FOUND,
    })),
});
