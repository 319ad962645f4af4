import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { defaultTable, type TableRef } from '../lib/data/table.js';
import { ApiError } from '../lib/errors.js';
import { httpHandler } from '../lib/http/handler.js';
import { json } from '../lib/http/responses.js';

/** 200 `{"status":"ok"}` only when the table answers and is active. */
export const makeHandler = (deps: TableRef = defaultTable()) =>
  httpHandler({ auth: 'none' }, async () => {
    const status = await deps.db
      .send(new DescribeTableCommand({ TableName: deps.tableName }))
      .then((r) => r.Table?.TableStatus)
      .catch(() => undefined);
    if (status !== 'ACTIVE') throw new ApiError(503, 'unavailable', 'The table is not reachable yet.', { headers: { 'Retry-After': '1' } });
    return json(200, { status: 'ok' });
  });

export const handler = makeHandler();
