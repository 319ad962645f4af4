import { defineEndpoint } from '#platform/http/contract.js';
import { EvaluationIdParams } from './params.js';
import { EVALUATIONS_TAG } from './tags.js';

export const EvaluationsCancel = defineEndpoint({
  id: 'EvaluationsCancel',
  method: 'POST',
  path: '/v2/evaluations/{id}/cancel',
  handler: 'functions/evaluations/cancel.ts',
  auth: 'bearer',
  params: EvaluationIdParams,
  table: 'readwrite',
  sends: true,
  operationId: 'cancelEvaluation',
  summary: 'Cancel an evaluation',
  description:
    'Without Idempotency-Key and without a body: 200 `cancelled`. The runs of a `run: true` evaluation that have not ended are cancelled within seconds (the last queued first); the caller’s own runs of an evaluation without `run` are left alone. A completed, cancelled or failed evaluation answers 409 (`evaluation_completed`, `evaluation_cancelled`, `evaluation_not_running`).',
  tags: [EVALUATIONS_TAG],
  responses: () =>
    import('../openapi/evaluations-responses.js').then(({ EvaluationSchema, EVALUATION_NOT_FOUND, PAST_RUNNING }) => ({
      200: { description: 'The evaluation, `cancelled`.', schema: EvaluationSchema },
      404: EVALUATION_NOT_FOUND,
      409: PAST_RUNNING,
    })),
});
