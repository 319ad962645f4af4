import * as z from 'zod';
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX } from '#platform/config/limits.js';
import { limitParam } from '#platform/http/common-schemas.js';

export const MemoryQuery = z.object({
  chat_id: z
    .string({ error: 'is required' })
    .min(1, { error: 'is required' })
    .max(200)
    .meta({ description: 'The context memory id (the chat id, or the request id of a request run without a chat).' }),
  limit: limitParam(LIST_LIMIT_MAX, LIST_LIMIT_DEFAULT),
  cursor: z.string().min(1).optional(),
});
