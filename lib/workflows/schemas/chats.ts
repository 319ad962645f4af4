import * as z from 'zod';
import { withExample } from '#platform/http/common-schemas.js';

export const CreateChatBody = withExample(
  z
    .strictObject({
      workflow_id: z
        .string()
        .max(200)
        .nullable()
        .optional()
        .meta({ description: "A workflow of the caller's account; anything else is 422 validation_failed naming `/workflow_id`." }),
      title: z.string().max(500).nullable().optional(),
    })
    .meta({ id: 'CreateChatRequest' }),
  { workflow_id: '2c4e6a80-1b3d-4f5a-8e7c-9d0b1a2c3e4f', title: 'Ticket SUP-1042' },
);
