import { serviceEnv } from '../lib/config/env.js';
import { documentClient } from '../lib/data/client.js';
import type { DocumentDb } from '../lib/data/document-db.js';
import { ApiError } from '../lib/errors.js';
import { httpHandler } from '../lib/http/handler.js';
import { json } from '../lib/http/responses.js';

/** 200 `{"status":"ok"}` only when the table answers and is active. */
export const makeHandler = (deps: { db: DocumentDb; tableName: string } = { db: documentClient(), tableName: serviceEnv.tableName }) =>
  httpHandler({ auth: 'none' }, async () => {
    const status = await deps.db
      .describeTable(deps.tableName)
      .then((r) => r.Table?.TableStatus)
      .catch(() => undefined);
    if (status !== 'ACTIVE') throw new ApiError(503, 'unavailable', 'The table is not reachable yet.', { headers: { 'Retry-After': '1' } });
    return json(200, { status: 'ok' });
  });

export const handler = makeHandler();
