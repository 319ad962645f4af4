import * as z from 'zod';
import { retryAfter } from '#platform/openapi/headers.js';
import { MACHINE_SIZES } from '../sizes.js';

export const MachineSchema = z
  .object({
    id: z.string().meta({ description: '`mch_…`.', example: 'mch_0mwvm6w715Up1NimNL49uBANV' }),
    name: z.string(),
    size: z.enum(MACHINE_SIZES),
    status: z.enum(['idle', 'busy']).meta({ description: '`busy` while a run holds the machine (running, or waiting for a person) or runs wait for it.' }),
    current_run_id: z.string().nullable().meta({ description: 'The run that holds the machine; null when none does.' }),
    queued_runs: z.number().int().min(0).meta({ description: 'How many runs wait for the machine, in creation order.' }),
    created_at: z.string().datetime(),
  })
  .meta({ id: 'Machine' });

export const ListMachinesResponse = z
  .object({
    machines: z.array(MachineSchema).meta({ description: 'Newest first.' }),
    next_cursor: z.string().nullable(),
    has_more: z.boolean(),
  })
  .meta({ id: 'MachineList' });

/** What every route on one machine by id answers when it is not the caller's to see. */
export const MACHINE_NOT_FOUND = "No such machine, a malformed id, or another account's (indistinguishable, `not_found`).";

/** Concurrent transactions on the account's machines kept colliding (lib/machines/machines-repository.ts). */
export const MACHINES_TOO_BUSY = {
  description: 'Too many concurrent changes to this account’s machines (`unavailable`); retry.',
  headers: retryAfter('always `1`'),
};
