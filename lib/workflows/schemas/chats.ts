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
