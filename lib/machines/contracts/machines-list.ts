import { defineEndpoint } from '#platform/http/contract.js';
import { ListMachinesQuery } from '../schemas/machines.js';
import { MACHINES_TAG } from './tags.js';

export const MachinesList = defineEndpoint({
  id: 'MachinesList',
  method: 'GET',
  path: '/v1/machines',
  handler: 'functions/machines/list.ts',
  auth: 'bearer',
  query: ListMachinesQuery,
  table: 'read',
  serviceKey: true,
  operationId: 'listMachines',
  summary: 'List machines',
  description: 'Newest first, paged with `limit` and `cursor`. A machine just created or deleted is already listed, or gone, on the next call.',
  tags: [MACHINES_TAG],
  responses: () =>
    import('../openapi/machines-responses.js').then(({ ListMachinesResponse }) => ({
      200: { description: 'A page of machines.', schema: ListMachinesResponse },
      400: '`limit` out of range (`invalid_parameter`), or a bad cursor (`cursor_invalid`, `cursor_filter_mismatch`).',
    })),
});
