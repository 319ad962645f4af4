import { defineEndpoint } from '#platform/http/contract.js';
import { CreateRunBody } from '../schemas.js';
import { RUNS_TAG } from './tags.js';

export const RunsCreate = defineEndpoint({
  id: 'RunsCreate',
  method: 'POST',
  path: '/v2/runs',
  handler: 'functions/runs/create.ts',
  auth: 'bearer',
  body: CreateRunBody,
  idempotency: 'required',
  table: 'readwrite',
  sends: true,
  operationId: 'createRun',
  summary: 'Start a run of a harness on a machine',
  description: [
    'A machine runs one run at a time, in creation order: on an idle machine the run starts at once (`running`), else it waits (`queued`) until the runs before it end. A run waiting for a person (`waiting`) still holds its machine.',
    '`machine_id` is required unless `chat_id` names a chat already bound to a machine; a chat is bound to the machine of its first run, and a run on a chat sees the chat’s earlier runs (their input and output). When the chat’s previous run has not ended, `if_busy` decides: `enqueue` (default, it waits its turn), `reject` (409 `chat_busy`) or `interrupt` (the active run is cancelled and this one starts next).',
    'An unknown or another account’s `harness_id`, `machine_id` or `chat_id`: 422 `validation_failed` naming the field (the same answer for both). A harness whose model provider is not configured here, or whose instructions file is empty: 422 `harness_not_runnable`. Requires `Idempotency-Key`.',
  ].join('\n\n'),
  tags: [RUNS_TAG],
  responses: () =>
    Promise.all([import('../openapi/runs-responses.js'), import('#usage/openapi/usage-responses.js')]).then(([{ RunSchema }, { USAGE_REFUSALS }]) => ({
      201: { description: 'The run, `running` or `queued`.', schema: RunSchema },
      400: 'A bad body (`invalid_json`, `invalid_body`, `unknown_field`), or a missing or malformed Idempotency-Key.',
      409: 'The chat’s previous run has not ended and `if_busy` is `reject` (`chat_busy`), or an idempotency conflict.',
      422: 'A field is missing or invalid, or names no harness, machine or chat of the account (`validation_failed`; `input` or `metadata` nested too deep: code `too_deep`); the harness cannot run here (`harness_not_runnable`).',
      403: 'A usage window is full, extra usage would pay, and the balance is below the minimum of 2.00 USD (`insufficient_balance`).',
      ...USAGE_REFUSALS,
    })),
});
