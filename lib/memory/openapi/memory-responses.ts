import * as z from 'zod';
import { withExample } from '#platform/http/common-schemas.js';
import { v1Page } from '#platform/openapi/pagination.js';

export const MemoryMessageSchema = withExample(
  z
    .object({
      id: z.string(),
      role: z.string(),
      content: z.string(),
      context_memory_id: z.string(),
      agent_node_id: z.string(),
      created_at: z.string(),
    })
    .meta({ id: 'MemoryMessage' }),
  {
    id: 'msg_3d5f7b9c-1e2a-4c4e-9f6a-8b0d2f4a6c8e_1',
    role: 'assistant',
    content: 'urgent',
    context_memory_id: '6f1d3b5a-8c2e-4a7b-9d0f-1e2a3b4c5d6e',
    agent_node_id: '5b0c8e2a-7d41-4f3b-9a6e-000000000001',
    created_at: '2026-01-31T09:40:01.200Z',
  },
);

export const MemoryPage = v1Page('messages', MemoryMessageSchema, { id: 'MemoryPage', limit: true, itemsDescription: 'Oldest first.' });
