import * as z from 'zod';

export const CreateChatBody = z
  .strictObject({
    workflow_id: z
      .string()
      .max(200)
      .nullable()
      .optional()
      .meta({ description: "A workflow of the caller's account; anything else is 422 validation_failed naming `/workflow_id`." }),
    title: z.string().max(500).nullable().optional(),
  })
  .meta({ id: 'CreateChatRequest' });

export const ChatSchema = z
  .object({
    id: z.uuid().meta({ description: 'Also the context memory id.' }),
    title: z.string().nullable(),
    workflow_id: z.uuid().nullable(),
    machine_id: z.string().nullable().meta({ description: 'The machine of the chat’s first run; null until then.' }),
    created_at: z.string().datetime(),
  })
  .meta({ id: 'Chat' });
