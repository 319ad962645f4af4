import * as z from 'zod';

export const ChatSchema = z
  .object({
    id: z.uuid().meta({ description: 'Also the context memory id.' }),
    title: z.string().nullable(),
    workflow_id: z.uuid().nullable(),
    machine_id: z.string().nullable().meta({ description: 'The machine of the chat’s first run; null until then.' }),
    created_at: z.string().datetime(),
  })
  .meta({ id: 'Chat' });
