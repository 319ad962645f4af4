import { defineEndpoint } from '#platform/http/contract.js';
import { EvaluationIdParams } from './params.js';
import { EVALUATIONS_TAG } from './tags.js';

export const EvaluationsGet = defineEndpoint({
  id: 'EvaluationsGet',
  method: 'GET',
  path: '/v2/evaluations/{id}',
  handler: 'functions/evaluations/get.ts',
  auth: 'bearer',
  params: EvaluationIdParams,
  table: 'read',
  operationId: 'getEvaluation',
  summary: 'Get an evaluation with its cases and attempts',
  description:
    'The evaluation, each case with the attempts recorded for it (by `attempt_index`) and, once `completed`, its `results`: per case the attempts, how many passed and the pass rate, and the pass rate over every case with a check.',
  tags: [EVALUATIONS_TAG],
  responses: () =>
    import('../openapi/evaluations-responses.js').then(({ EvaluationSchema, EVALUATION_NOT_FOUND }) => ({
      200: { description: 'The evaluation, its cases and the attempts recorded for each.', schema: EvaluationSchema },
      404: EVALUATION_NOT_FOUND,
    })),
});
