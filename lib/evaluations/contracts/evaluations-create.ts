import { defineEndpoint } from '#platform/http/contract.js';
import { MAX_ATTEMPTS_PER_CASE, MAX_CASES } from '../model.js';
import { CreateEvaluationBody } from '../schemas.js';
import { EVALUATIONS_TAG } from './tags.js';

export const EvaluationsCreate = defineEndpoint({
  id: 'EvaluationsCreate',
  method: 'POST',
  path: '/v2/evaluations',
  handler: 'functions/evaluations/create.ts',
  auth: 'bearer',
  body: CreateEvaluationBody,
  idempotency: 'required',
  table: 'readwrite',
  sends: true,
  operationId: 'createEvaluation',
  summary: 'Create an evaluation',
  description: [
    `An evaluation of a harness over 1 to ${MAX_CASES} cases (ids unique within it), \`attempts_per_case\` (1 to ${MAX_ATTEMPTS_PER_CASE}) attempts each: the slots \`(case id, attempt_index)\`, \`attempt_index\` from 0. It starts \`running\`.`,
    'Without `run`, the caller records a run of the harness for each slot (POST …/attempts) and completes it (POST …/complete). With `run: true` the service starts the runs itself on the machine, in slot order (queued there like any runs), records each as it creates it, and completes the evaluation when the last one ends; the harness must then be runnable here (422 `harness_not_runnable`).',
    'With `run: true` the evaluation is admitted like a run at its creation: a full usage window answers 429 with the quota document, extra usage with a balance under 2.00 USD 403 `insufficient_balance`; each run then checks its funding before every model turn like any run.',
    'A case’s `expected` is checked against its runs’ output when each ends; a completed evaluation reports per case the attempts, their runs’ statuses and, with a check, how many passed.',
    'An unknown or another account’s `harness_id` or `machine_id`: 422 `validation_failed` naming the field (the same answer for both); a repeated case id names `/cases/<i>/id` (`duplicate_id`), a regex or JSONata check that does not compile names `/cases/<i>/expected/value`. Requires `Idempotency-Key`.',
  ].join('\n\n'),
  tags: [EVALUATIONS_TAG],
  responses: () =>
    Promise.all([import('../openapi/evaluations-responses.js'), import('#usage/openapi/usage-responses.js')]).then(
      ([{ EvaluationSchema }, { USAGE_REFUSALS }]) => ({
        201: { description: 'The evaluation, `running`, with its cases (no attempts yet).', schema: EvaluationSchema },
        400: 'A bad body (`invalid_json`, `invalid_body`, `unknown_field`), or a missing or malformed Idempotency-Key.',
        409: 'An idempotency conflict (`idempotency_key_conflict`; `idempotency_key_in_flight`, with `Retry-After`).',
        422: 'A field is missing or invalid, or names no harness or machine of the account (`validation_failed`; a case’s `input` nested too deep: code `too_deep`); with `run: true`, the harness cannot run here (`harness_not_runnable`).',
        403: 'A usage window is full, extra usage would pay, and the balance is below the minimum of 2.00 USD (`insufficient_balance`; only with `run: true`).',
        ...USAGE_REFUSALS,
      }),
    ),
});
