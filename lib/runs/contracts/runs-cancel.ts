import { defineEndpoint } from '#platform/http/contract.js';
import { RunIdParams } from './params.js';
import { RUNS_TAG } from './tags.js';

export const RunsCancel = defineEndpoint({
  id: 'RunsCancel',
  method: 'POST',
  path: '/v2/runs/{id}/cancel',
  handler: 'functions/runs/cancel.ts',
  auth: 'bearer',
  params: RunIdParams,
  table: 'readwrite',
  sends: true,
  operationId: 'cancelRun',
  summary: 'Cancel a run',
  description:
    'Idempotent, without Idempotency-Key and without a body. A queued run is cancelled at once and leaves its machine’s queue; a running or waiting run stops at once: its in-flight model and MCP calls are aborted (within a second), its pending interaction is cancelled and its machine moves on to the next run. A run that has ended comes back unchanged.',
  tags: [RUNS_TAG],
  responses: () =>
    import('../openapi/runs-responses.js').then(({ RunSchema, RUN_NOT_FOUND }) => ({
      200: { description: 'The run, `cancelled`, or unchanged if it had ended.', schema: RunSchema },
      404: RUN_NOT_FOUND,
    })),
});
