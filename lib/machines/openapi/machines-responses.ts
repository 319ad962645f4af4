import * as z from 'zod';
import { withExample } from '#platform/http/common-schemas.js';
import { retryAfter } from '#platform/openapi/headers.js';
import { v1Page } from '#platform/openapi/pagination.js';
import { MACHINE_SIZES } from '../sizes.js';

export const MachineSchema = withExample(
  z
    .object({
      id: z.string().meta({ description: '`mch_…`.', example: 'mch_0mwvm6w715Up1NimNL49uBANV' }),
      name: z.string(),
      size: z.enum(MACHINE_SIZES),
      status: z.enum(['idle', 'busy']).meta({ description: '`busy` while a run holds the machine (running, or waiting for a person) or runs wait for it.' }),
      current_run_id: z.string().nullable().meta({ description: 'The run that holds the machine; null when none does.' }),
      queued_runs: z.number().int().min(0).meta({ description: 'How many runs wait for the machine, in creation order.' }),
      created_at: z.string().datetime(),
    })
    .meta({ id: 'Machine' }),
  {
    id: 'mch_0mwvm6w715Up1NimNL49uBANV',
    name: 'support-1',
    size: 'small',
    status: 'busy',
    current_run_id: 'run_0mwvm6w71Qx3LhT0pV9sKe2bA',
    queued_runs: 1,
    created_at: '2026-01-31T08:50:00.000Z',
  },
);

export const ListMachinesResponse = v1Page('machines', MachineSchema, { id: 'MachineList', itemsDescription: 'Newest first.' });

/** What every route on one machine by id answers when it is not the caller's to see. */
export const MACHINE_NOT_FOUND = "No such machine, a malformed id, or another account's (indistinguishable, `not_found`).";

/** Concurrent transactions on the account's machines kept colliding (the machines repository gives up). */
export const MACHINES_TOO_BUSY = {
  description: 'Too many concurrent changes to this account’s machines (`unavailable`); retry.',
  headers: retryAfter('always `1`'),
};
