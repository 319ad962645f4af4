import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { Health } from '#app/contracts/health.js';
import { UnavailableError } from '#platform/errors.js';
import { httpHandler } from '#platform/http/handler.js';
import { json } from '#platform/http/responses.js';
import { defaultTable, type TableRef } from '#platform/table/table.js';

/** 200 `{"status":"ok"}` only when the table answers and is active. */
export const makeHandler = (deps: TableRef = defaultTable()) =>
  httpHandler(Health, { auth: 'none' }, async () => {
    const status = await deps.db
      .send(new DescribeTableCommand({ TableName: deps.tableName }))
      .then((r) => r.Table?.TableStatus)
      .catch(() => undefined);
    if (status !== 'ACTIVE') throw new UnavailableError('The table is not reachable yet.');
    return json(200, { status: 'ok' });
  });

export const handler = makeHandler();
