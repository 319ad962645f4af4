import { defineEndpoint } from '#platform/http/contract.js';
import { EvaluationIdParams } from './params.js';
import { EVALUATIONS_TAG } from './tags.js';

export const EvaluationsComplete = defineEndpoint({
  id: 'EvaluationsComplete',
  method: 'POST',
  path: '/v2/evaluations/{id}/complete',
  handler: 'functions/evaluations/complete.ts',
  auth: 'bearer',
  params: EvaluationIdParams,
  table: 'readwrite',
  // The completion announces its `evaluation.completed` event to the webhooks (lib/webhooks/index.ts).
  sends: true,
  operationId: 'completeEvaluation',
  summary: 'Complete an evaluation',
  description: [
    'Without Idempotency-Key and without a body. Completes a running evaluation whose every slot is recorded (for `run: true`, whose every run has ended): 200 `completed` with its `results`, and the `evaluation.completed` event in the account’s event record. Otherwise 409 `evaluation_incomplete` with one `errors` entry per case that misses attempts (`name` the case id, `reason` the missing `attempt_index` values, `code` `attempts_missing`).',
    'An attempt whose run has not ended yet counts in `run_statuses` with its status then, and does not pass. A completed, cancelled or failed evaluation answers 409 (`evaluation_completed`, `evaluation_cancelled`, `evaluation_not_running`): completing twice is refused, not repeated.',
  ].join('\n\n'),
  tags: [EVALUATIONS_TAG],
  responses: () =>
    import('../openapi/evaluations-responses.js').then(({ EvaluationSchema, EVALUATION_NOT_FOUND, PAST_RUNNING }) => ({
      200: { description: 'The evaluation, `completed`, with its results.', schema: EvaluationSchema },
      404: EVALUATION_NOT_FOUND,
      409: `Attempts are missing (\`evaluation_incomplete\`, \`errors\` names the cases). ${PAST_RUNNING}`,
    })),
});
