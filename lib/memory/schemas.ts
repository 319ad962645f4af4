import * as z from 'zod';
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX } from '#platform/config/limits.js';
import { limitParam } from '#platform/http/common-schemas.js';

export const CHAT_ID_MAX_LENGTH = 200;

export const MemoryQuery = z.object({
  // A missing chat_id is reported as required by the query parser; an error set on z.string() itself
  // would also name every other fault of it (one too long) "is required".
  chat_id: z
    .string()
    .min(1, { error: 'is required' })
    .max(CHAT_ID_MAX_LENGTH, { error: `must be at most ${CHAT_ID_MAX_LENGTH} characters` })
    .meta({ description: 'The context memory id (the chat id, or the request id of a request run without a chat).' }),
  limit: limitParam(LIST_LIMIT_MAX, LIST_LIMIT_DEFAULT),
  cursor: z.string().min(1).optional(),
});
