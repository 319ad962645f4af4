import { defineEndpoint } from '#platform/http/contract.js';
import { CreateMachineBody } from '../schemas/machines.js';
import { MACHINES_TAG } from './tags.js';

export const MachinesCreate = defineEndpoint({
  id: 'MachinesCreate',
  method: 'POST',
  path: '/v1/machines',
  handler: 'functions/machines/create.ts',
  auth: 'bearer',
  body: CreateMachineBody,
  idempotency: 'optional',
  table: 'readwrite',
  operationId: 'createMachine',
  summary: 'Create a machine',
  description: [
    'A machine runs one run at a time; further runs for it wait in order. A new machine is `idle`, with no run and none waiting. `size` defaults to `small`.',
    'The plan limits how many machines an account has (free 1, pro 3, team 20), exactly, also under concurrent creates: past it the answer is 402 `machine_limit_reached`, whose problem document also carries the `limit`. Deleting a machine frees its slot.',
    'An `Idempotency-Key` header is optional here; with one, a retry returns the first answer with `Idempotency-Replayed: true` and takes no second slot.',
  ].join('\n\n'),
  tags: [MACHINES_TAG],
  responses: () =>
    import('../openapi/machines-responses.js').then(({ MachineSchema, MACHINES_TOO_BUSY }) => ({
      201: { description: 'The machine.', schema: MachineSchema },
      400: 'Not JSON, not an object, an unknown field (`invalid_json`, `invalid_body`, `unknown_field`), or a malformed Idempotency-Key (`idempotency_key_invalid`).',
      402: 'The account has as many machines as its plan allows (`machine_limit_reached`; `limit` names the number).',
      409: 'Idempotency-Key reused with another body (`idempotency_key_conflict`), or still in flight (`idempotency_key_in_flight`, with `Retry-After`).',
      422: 'A field is missing or malformed (`validation_failed`): `name` 1 to 200 characters after trimming, `size` one of `small`, `medium`, `large`.',
      503: MACHINES_TOO_BUSY,
    })),
});
