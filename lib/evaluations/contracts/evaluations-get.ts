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
  tags: [EVALUATIONS_TAG],
  responses: () =>
    import('../openapi/evaluations-responses.js').then(({ EvaluationSchema, EVALUATION_NOT_FOUND }) => ({
      200: { description: 'The evaluation, its cases and the attempts recorded for each.', schema: EvaluationSchema },
      404: EVALUATION_NOT_FOUND,
    })),
});
