import { defineEndpoint } from '#platform/http/contract.js';
import { RecordAttemptBody } from '../schemas.js';
import { EvaluationIdParams } from './params.js';
import { EVALUATIONS_TAG } from './tags.js';

export const EvaluationsRecordAttempt = defineEndpoint({
  id: 'EvaluationsRecordAttempt',
  method: 'POST',
  path: '/v2/evaluations/{id}/attempts',
  handler: 'functions/evaluations/attempts.ts',
  auth: 'bearer',
  params: EvaluationIdParams,
  body: RecordAttemptBody,
  idempotency: 'required',
  table: 'readwrite',
  operationId: 'recordEvaluationAttempt',
  summary: 'Record a run as an attempt of a case',
  description: [
    'Fills the slot `(case_id, attempt_index)` with `run_id`: 201. The same run for the same slot again is a 200 no-op; another run is 409 `attempt_conflict`. Exact under concurrency: of two different runs recorded at once for one slot, one is 201 and the other 409.',
    'The run must be the caller’s, of the evaluation’s harness, and in no other slot of the evaluation (422 `validation_failed` naming `/run_id`); `case_id` must name a case of the evaluation and `attempt_index` be from 0 to `attempts_per_case - 1` (422 naming the field). A run that has ended is recorded with its outcome; one that ends later has it recorded within seconds of its end.',
    'The slots of a `run: true` evaluation are the service’s: another run than the one it recorded is 409 `attempt_conflict`. Requires `Idempotency-Key`.',
  ].join('\n\n'),
  tags: [EVALUATIONS_TAG],
  responses: () =>
    import('../openapi/evaluations-responses.js').then(({ AttemptSchema, EVALUATION_NOT_FOUND, PAST_RUNNING }) => ({
      200: { description: 'The same run was recorded for the slot already: the attempt, unchanged.', schema: AttemptSchema },
      201: { description: 'The attempt, recorded.', schema: AttemptSchema },
      400: 'A bad body (`invalid_json`, `invalid_body`, `unknown_field`), or a missing or malformed Idempotency-Key.',
      404: EVALUATION_NOT_FOUND,
      409: `Another run holds the slot (\`attempt_conflict\`). ${PAST_RUNNING} Or an idempotency conflict.`,
      422: 'A field is missing or invalid: an unknown `case_id`, an `attempt_index` out of range, a `run_id` that is not a run of the account, of the evaluation’s harness, or is recorded for another attempt (`validation_failed`).',
    })),
});
