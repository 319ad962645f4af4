import { Agent, request as httpRequest } from 'node:http';
import { type CountingProxy, type Forward, parseJson, startCountingProxy } from './counting-proxy.js';
import {
  billAnswered,
  billRefused,
  CAPACITY_OPS,
  type CallContext,
  type DynamoCall,
  kindOf,
  localCapacity,
  type SideReads,
  transactTargets,
} from './dynamo-billing.js';
import type { WireItem } from './item-size.js';

export interface DynamoProxyOptions {
  /** Add `ReturnConsumedCapacity: INDEXES` to every call that supports it and record capacity. */
  consumedCapacity?: boolean;
  /** Read written items on the side (straight from DynamoDB Local, not counted) to size transactions and failed conditional writes. */
  sizing?: boolean;
}

export interface DynamoCountingProxy extends CountingProxy<DynamoCall> {
  configure(options: DynamoProxyOptions): void;
}

/** A strongly consistent GetItem straight to DynamoDB Local: not counted, not seen by the service. */
function sideGetter(upstream: string, agent: Agent) {
  const target = new URL(upstream);
  return (tableName: string, key: WireItem): Promise<WireItem | undefined> =>
    new Promise((resolve) => {
      const body = Buffer.from(JSON.stringify({ TableName: tableName, Key: key, ConsistentRead: true }));
      const call = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          method: 'POST',
          path: '/',
          agent,
          headers: {
            'content-type': 'application/x-amz-json-1.0',
            'x-amz-target': 'DynamoDB_20120810.GetItem',
            'content-length': String(body.length),
            authorization: 'AWS4-HMAC-SHA256 Credential=local/20200101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=bench',
          },
        },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on('data', (c: Buffer) => parts.push(c));
          answer.on('end', () => resolve((parseJson(Buffer.concat(parts))?.Item as WireItem | undefined) ?? undefined));
        },
      );
      call.on('error', () => resolve(undefined));
      call.end(body);
    });
}

/**
 * A DynamoDB Local proxy counting calls by operation; with
 * `consumedCapacity` it records capacity per call. What DynamoDB Local 3.x
 * reports was checked against the AWS rules: single-item and batch calls
 * match, so their figure is taken as reported. Three cases do not, and are
 * computed instead (bench/support/dynamo-billing.ts): transactions
 * (DynamoDB Local's figure for TransactWriteItems is inconsistent: two 1 KB
 * items reported as 2 units, not 4), conditional writes that fail
 * (reported as nothing; AWS bills the existing item), and Queries that read
 * nothing (reported as 0; billed at the minimum).
 */
export async function startDynamoCountingProxy(upstream: string, options: DynamoProxyOptions = {}): Promise<DynamoCountingProxy> {
  const sideAgent = new Agent({ keepAlive: true });
  const sideGet = sideGetter(upstream, sideAgent);
  let consumedCapacity = options.consumedCapacity ?? false;
  let sizing = options.sizing ?? false;

  const record = async (op: string, body: Buffer, forward: Forward) => {
    const startedAt = Date.now();
    const request = parseJson(body);
    if (!consumedCapacity || !request || !CAPACITY_OPS.has(op)) {
      const exchange = await forward(body);
      const call: DynamoCall = {
        op,
        startedAt,
        endedAt: Date.now(),
        status: exchange.status,
        request,
        kind: 'other',
        consistentRead: false,
        awsUnits: 0,
        awsIndexUnits: 0,
        basis: 'none',
      };
      return { exchange, call };
    }
    const side: SideReads = { sized: sizing, get: sideGet };
    const transaction = op === 'TransactWriteItems' ? transactTargets(request) : undefined;
    const before = side.sized && transaction ? await Promise.all(transaction.map((t) => sideGet(t.tableName, t.key))) : undefined;

    const exchange = await forward(Buffer.from(JSON.stringify({ ...request, ReturnConsumedCapacity: 'INDEXES' })));
    const answer = exchange.headers['content-encoding'] ? undefined : parseJson(exchange.body);
    const consistentRead =
      op === 'BatchGetItem'
        ? Object.values((request.RequestItems as Record<string, { ConsistentRead?: boolean }>) ?? {}).some((r) => r.ConsistentRead === true)
        : request.ConsistentRead === true;
    const errorType = exchange.status >= 400 ? String(answer?.__type ?? 'error').replace(/^.*#/, '') : undefined;
    const local = localCapacity(answer);
    const call: DynamoCall = {
      op,
      startedAt,
      endedAt: 0,
      status: exchange.status,
      ...(errorType ? { errorType } : {}),
      request,
      kind: kindOf(op),
      consistentRead,
      ...(local ? { localUnits: local.total, localIndexUnits: local.index } : {}),
      awsUnits: local?.total ?? 0,
      awsIndexUnits: local?.index ?? 0,
      basis: local ? 'local' : 'none',
    };
    const context: CallContext = { op, request, answer, transaction, before };
    if (exchange.status === 200) await billAnswered(call, context, side);
    else await billRefused(call, context, side);
    call.endedAt = Date.now();
    return { exchange, call };
  };

  const proxy = await startCountingProxy<DynamoCall>({ upstream, targetPrefix: /^DynamoDB_\d+\./, record, onClose: () => sideAgent.destroy() });
  return Object.assign(proxy, {
    configure(next: DynamoProxyOptions) {
      if (next.sizing !== undefined) sizing = next.sizing;
      if (next.consumedCapacity !== undefined) consumedCapacity = next.consumedCapacity;
    },
  });
}
