import * as z from 'zod';

export const MemoryMessageSchema = z
  .object({
    id: z.string(),
    role: z.string(),
    content: z.string(),
    context_memory_id: z.string(),
    agent_node_id: z.string(),
    created_at: z.string(),
  })
  .meta({ id: 'MemoryMessage' });

export const MemoryPage = z
  .object({
    messages: z.array(MemoryMessageSchema),
    next_cursor: z.string().nullable(),
    has_more: z.boolean(),
    limit: z.number().int(),
  })
  .meta({ id: 'MemoryPage' });
