import { defineEndpoint } from '#platform/http/contract.js';
import { MachineIdParams } from './params.js';
import { MACHINES_TAG } from './tags.js';

export const MachinesDelete = defineEndpoint({
  id: 'MachinesDelete',
  method: 'DELETE',
  path: '/v1/machines/{id}',
  handler: 'functions/machines/delete.ts',
  auth: 'bearer',
  params: MachineIdParams,
  table: 'readwrite',
  operationId: 'deleteMachine',
  summary: 'Delete a machine',
  description: [
    'Deletes the machine and frees its slot of the plan’s machine limit.',
    'A machine with a run on it is not deleted: while a run is running or waiting for a person on it (`current_run_id` set) or runs are queued for it (`queued_runs` above 0), the answer is 409 `machine_busy` and nothing changes. Cancel those runs first (`POST /v2/runs/{id}/cancel`), then delete. The check is the condition of the delete itself, so it holds under concurrency: a machine is either deleted with no run on it, or kept.',
    'Deleting a machine that is already gone answers 404, so of concurrent deletes of one machine exactly one answers 204.',
  ].join('\n\n'),
  tags: [MACHINES_TAG],
  responses: () =>
    import('../openapi/machines-responses.js').then(({ MACHINE_NOT_FOUND, MACHINES_TOO_BUSY }) => ({
      204: { description: 'Deleted.' },
      404: MACHINE_NOT_FOUND,
      409: 'A run is running, waiting or queued on the machine (`machine_busy`); cancel it first.',
      503: MACHINES_TOO_BUSY,
    })),
});
