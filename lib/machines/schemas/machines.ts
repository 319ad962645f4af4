import * as z from 'zod';
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX } from '#platform/config/limits.js';
import { limitParam, withExample } from '#platform/http/common-schemas.js';
import { DEFAULT_MACHINE_SIZE, MACHINE_SIZES } from '../sizes.js';

export const CreateMachineBody = withExample(
  z
    .strictObject({
      name: z.string().trim().min(1).max(200).meta({ description: 'Leading and trailing spaces are removed.' }),
      size: z.enum(MACHINE_SIZES).default(DEFAULT_MACHINE_SIZE).meta({
        description:
          'The memory of the function that runs the agent loop of a run on this machine: `small` 1024 MB, `medium` 2048 MB, `large` 4096 MB. Machine time is metered per size.',
      }),
    })
    .meta({ id: 'CreateMachineRequest' }),
  { name: 'support-1', size: 'small' },
);

export const ListMachinesQuery = z.object({
  limit: limitParam(LIST_LIMIT_MAX, LIST_LIMIT_DEFAULT),
  cursor: z.string().min(1).optional().meta({ description: '`next_cursor` of the previous page.' }),
});
