import { defineEndpoint } from '#platform/http/contract.js';
import { MACHINE_BUSY, TARGET_NOT_FOUND } from '../model.js';
import { ScheduleIdParams } from './params.js';
import { SCHEDULES_TAG } from './tags.js';

export const SchedulesTrigger = defineEndpoint({
  id: 'SchedulesTrigger',
  method: 'POST',
  path: '/v1/schedules/{id}/trigger',
  handler: 'functions/schedules/trigger.ts',
  auth: 'bearer',
  params: ScheduleIdParams,
  idempotency: 'optional',
  table: 'readwrite',
  sends: true,
  schedules: true,
  operationId: 'triggerSchedule',
  summary: 'Fire a schedule now',
  description: [
    'Fires the schedule now, enabled or not, as its own firings do: its target’s workflow request or run, with `metadata` `{schedule_id, scheduled_at}` and `scheduled_at` now. Its timing is unchanged: `next_fire_at` stays as it was.',
    'A firing the account refuses (a full usage window, the balance, the ceiling of work in progress, a busy machine under `if_busy: reject`) answers that refusal and is recorded as the schedule’s `last_error`, as a timed firing’s is; a target that is gone answers 422 and disables the schedule.',
    'An `Idempotency-Key` header is optional; with one, a retry answers the first answer and fires nothing; without one, each call fires once more.',
  ].join('\n\n'),
  tags: [SCHEDULES_TAG],
  responses: () =>
    Promise.all([import('../openapi/schedules-responses.js'), import('#usage/openapi/usage-responses.js')]).then(
      ([{ TriggerResponse, SCHEDULE_NOT_FOUND }, { USAGE_REFUSALS }]) => ({
        201: { description: 'Fired: the schedule as recorded and what the firing made.', schema: TriggerResponse },
        400: 'A malformed Idempotency-Key (`idempotency_key_invalid`).',
        403: 'The account is suspended (`forbidden`), or a usage window is full, extra usage would pay, and the balance is below the minimum of 2.00 USD (`insufficient_balance`). Recorded as `last_error`.',
        404: SCHEDULE_NOT_FOUND,
        409: `The target is a run with \`if_busy: reject\` and its machine has a run going or waiting (\`${MACHINE_BUSY}\`, recorded as \`last_error\`); or the Idempotency-Key is still in flight (\`idempotency_key_in_flight\`, with \`Retry-After\`).`,
        422: `The target’s version, entry nodes, harness or machine are gone (\`validation_failed\`): recorded as \`last_error\` with code \`${TARGET_NOT_FOUND}\`, and the schedule is disabled. Or the harness cannot run here (\`harness_not_runnable\`, recorded).`,
        429: { ...USAGE_REFUSALS[429], description: `${USAGE_REFUSALS[429].description} Recorded as \`last_error\`.` },
      }),
    ),
});
