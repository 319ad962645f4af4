import * as z from 'zod';
import { withExample } from '#platform/http/common-schemas.js';

export const ChatSchema = withExample(
  z
    .object({
      id: z.uuid().meta({ description: 'Also the context memory id.' }),
      title: z.string().nullable(),
      workflow_id: z.uuid().nullable(),
      machine_id: z.string().nullable().meta({ description: 'The machine of the chat’s first run; null until then.' }),
      created_at: z.string().datetime(),
    })
    .meta({ id: 'Chat' }),
  {
    id: '6f1d3b5a-8c2e-4a7b-9d0f-1e2a3b4c5d6e',
    title: 'Ticket SUP-1042',
    workflow_id: '2c4e6a80-1b3d-4f5a-8e7c-9d0b1a2c3e4f',
    machine_id: null,
    created_at: '2026-01-31T09:29:00.000Z',
  },
);
