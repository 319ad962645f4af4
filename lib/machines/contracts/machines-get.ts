import { defineEndpoint } from '#platform/http/contract.js';
import { MachineIdParams } from './params.js';
import { MACHINES_TAG } from './tags.js';

export const MachinesGet = defineEndpoint({
  id: 'MachinesGet',
  method: 'GET',
  path: '/v1/machines/{id}',
  handler: 'functions/machines/get.ts',
  auth: 'bearer',
  params: MachineIdParams,
  table: 'read',
  operationId: 'getMachine',
  summary: 'Get a machine',
  description: 'With its status: the run that holds it (`current_run_id`) and how many wait for it (`queued_runs`).',
  tags: [MACHINES_TAG],
  responses: () =>
    import('../openapi/machines-responses.js').then(({ MachineSchema, MACHINE_NOT_FOUND }) => ({
      200: { description: 'The machine.', schema: MachineSchema },
      404: MACHINE_NOT_FOUND,
    })),
});
