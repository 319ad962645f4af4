import * as z from 'zod';
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX } from '../config/limits.js';
import { limitParam } from './common.js';

export const MemoryQuery = z.object({
  chat_id: z.string({ error: 'is required' }).min(1, { error: 'is required' }).max(200).meta({ description: 'The context memory id (the chat id, or the request id of a request run without a chat).' }),
  limit: limitParam(LIST_LIMIT_MAX, LIST_LIMIT_DEFAULT),
  cursor: z.string().min(1).optional(),
});

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
