import { defineEndpoint } from '#platform/http/contract.js';
import { ForkRunBody } from '../fork-schemas.js';
import { RunIdParams } from './params.js';
import { RUNS_TAG } from './tags.js';

export const RunsFork = defineEndpoint({
  id: 'RunsFork',
  method: 'POST',
  path: '/v2/runs/{id}/fork',
  handler: 'functions/runs/fork.ts',
  auth: 'bearer',
  params: RunIdParams,
  body: ForkRunBody,
  idempotency: 'required',
  table: 'readwrite',
  sends: true,
  operationId: 'forkRun',
  summary: 'Fork an ended run from one of its events',
  description: [
    'A new run of the ended run’s harness, input and chat (on its machine unless `machine_id` names another), whose conversation is the source’s up to and including event `from_seq`: every model turn and tool result recorded up to there is reused, neither repeated (the model and the tools are not called again for them) nor billed again, and from there the loop goes on live. It is placed like any new run: started on an idle machine, else queued behind the runs before it; on a chat whose previous run has not ended it waits its turn. The run shows `forked_from: {run_id, seq}`.',
    'What is reused: each model turn whose `message` and `tool_call` events are all at or before `from_seq`, except the turn of the final answer (played again), and each tool result whose `tool_result` event is, in order. A call of a reused turn whose result is after `from_seq` is made again; `from_seq` inside a model turn’s events forks before that turn.',
    'The fork’s events start with the reused conversation: copies of the source’s `message`, `tool_call`, `tool_result` and `interaction` events, each with `data.reused_from: {run_id, seq}` naming the source event, then its own `run.status` events and what it does live. Its `usage` counts only what it does live.',
    'A run that has not ended: 409 `run_not_ended`. `from_seq` that is not an integer from 1 to the seq of the source’s last event (or names events past their 30-day retention): 422 `validation_failed` naming `/from_seq`. Requires `Idempotency-Key`.',
  ].join('\n\n'),
  tags: [RUNS_TAG],
  responses: () =>
    Promise.all([import('../openapi/runs-responses.js'), import('#usage/openapi/usage-responses.js')]).then(
      ([{ RunSchema, RUN_NOT_FOUND }, { USAGE_REFUSALS }]) => ({
        201: { description: 'The fork, `running` or `queued`, with `forked_from`.', schema: RunSchema },
        400: 'A bad body (`invalid_json`, `invalid_body`, `unknown_field`), or a missing or malformed Idempotency-Key.',
        404: RUN_NOT_FOUND,
        409: 'The run has not ended (`run_not_ended`), or an idempotency conflict.',
        422: '`from_seq` is not an integer from 1 to the seq of the run’s last event, or `machine_id` names no machine of the account, or not the chat’s (`validation_failed`, naming the field); the harness cannot run here (`harness_not_runnable`).',
        403: 'A usage window is full, extra usage would pay, and the balance is below the minimum of 2.00 USD (`insufficient_balance`).',
        ...USAGE_REFUSALS,
      }),
    ),
});
