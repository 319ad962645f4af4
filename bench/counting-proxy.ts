import { Agent, createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { itemSize, readUnits, type WireItem, writeUnits } from './item-size.js';

/**
 * HTTP proxies in front of the local emulators that count what the service
 * asks of them. Both speak the AWS JSON protocol: one POST per API call,
 * the operation in `X-Amz-Target`, a JSON body.
 *
 * - `startCountingProxy`: DynamoDB Local. Counts calls by operation and,
 *   with `consumedCapacity`, asks DynamoDB Local for the capacity of every
 *   call that can report it and records read and write units per call,
 *   corrected to AWS's billing rules where DynamoDB Local differs (see
 *   `DynamoCall.basis`).
 * - `startSqsCountingProxy`: the SQS emulator. Records every call with its
 *   message count and payload size (SQS bills each 64 KB chunk of a payload
 *   as one request).
 *
 * Responses go back to the service byte for byte (DynamoDB's `x-amz-crc32`
 * stays valid); a request body is rewritten only to add
 * `ReturnConsumedCapacity`.
 */

export interface CountingProxy {
  url: string;
  /** Requests forwarded since the last reset. */
  readonly total: number;
  /** Requests since the last reset by `X-Amz-Target` operation (`DynamoDB_20120810.` dropped). */
  byTarget(): Record<string, number>;
  reset(): void;
  close(): Promise<void>;
}

/** How `awsUnits` of a DynamoDB call was arrived at. */
export type CapacityBasis =
  /** As DynamoDB Local reported it (table plus indexes). */
  | 'local'
  /** A Query that read nothing: DynamoDB Local reports 0; billed at the minimum (1 strongly consistent, 0.5 eventually). */
  | 'minimum-read'
  /** TransactWriteItems: 2 × the item's write units (largest of before and after image, read on the side) per item, index copies included. */
  | 'sized-transaction'
  /** A write whose condition failed: DynamoDB Local reports nothing; AWS bills the existing item's size (at least 1). */
  | 'sized-failed-condition'
  /** A transaction that was cancelled: 2 × each existing item's write units. */
  | 'sized-failed-transaction'
  /** As above but without side reads (sizing off): the minimum. */
  | 'minimum-write'
  /** An error that consumed nothing. */
  | 'none';

export interface DynamoCall {
  op: string;
  startedAt: number;
  endedAt: number;
  status: number;
  /** `__type` of an error answer, without its namespace, e.g. `ConditionalCheckFailedException`. */
  errorType?: string;
  /** The request as the service sent it (before `ReturnConsumedCapacity` was added). */
  request: Record<string, unknown> | undefined;
  kind: 'read' | 'write' | 'other';
  consistentRead: boolean;
  /** ConsumedCapacity as DynamoDB Local reported it: total, and the part on indexes. */
  localUnits?: number;
  localIndexUnits?: number;
  /** The same call's units under AWS's size rules, computed here from item sizes, when computable (a check on `localUnits`). */
  sizedUnits?: number;
  /** The figure to bill: AWS's rules. */
  awsUnits: number;
  /** The part of `awsUnits` spent on index copies. */
  awsIndexUnits: number;
  basis: CapacityBasis;
  /** Writes: table items and index copies written (sizing on), for the minimum-size floor. */
  itemsWritten?: number;
  indexItemsWritten?: number;
  transactional?: boolean;
}

export interface DynamoProxyOptions {
  /** Add `ReturnConsumedCapacity: INDEXES` to every call that supports it and record capacity. */
  consumedCapacity?: boolean;
  /** Read written items on the side (straight from DynamoDB Local, not counted) to size transactions and failed conditional writes. */
  sizing?: boolean;
  keyAttributes?: readonly [string, string];
  /** Key attributes of each global secondary index (projection ALL assumed). */
  indexKeys?: ReadonlyArray<readonly string[]>;
}

export interface DynamoCountingProxy extends CountingProxy {
  /** Every call with a response, in order of completion (capacity recorded only with `consumedCapacity`). */
  readonly calls: readonly DynamoCall[];
  /** Calls sent and not yet answered. */
  readonly inFlight: number;
  configure(options: Pick<DynamoProxyOptions, 'sizing' | 'consumedCapacity'>): void;
}

const CAPACITY_OPS = new Set([
  'GetItem',
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'Query',
  'Scan',
  'BatchGetItem',
  'BatchWriteItem',
  'TransactWriteItems',
  'TransactGetItems',
]);
const READ_OPS = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem', 'TransactGetItems']);
const WRITE_OPS = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);
const SINGLE_WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem']);

interface Exchange {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * The forwarding core: reads the whole request, lets `handle` rewrite it and
 * observe the whole answer (it may delay it), and writes the answer back
 * unchanged. A client that goes away aborts the upstream call.
 */
function forwardingServer(
  upstream: string,
  agent: Agent,
  handle: (req: IncomingMessage, body: Buffer, forward: (body: Buffer) => Promise<Exchange>) => Promise<Exchange>,
) {
  const target = new URL(upstream);
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let closed = false;
      const pending = new Set<ReturnType<typeof httpRequest>>();
      res.on('close', () => {
        closed = true;
        for (const p of pending) p.destroy();
      });
      const forward = (body: Buffer): Promise<Exchange> =>
        new Promise((resolve, reject) => {
          const headers = { ...req.headers, 'content-length': String(body.length) };
          delete headers['transfer-encoding'];
          const call = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers, agent }, (answer) => {
            const parts: Buffer[] = [];
            answer.on('data', (chunk: Buffer) => parts.push(chunk));
            answer.on('end', () => {
              pending.delete(call);
              resolve({ status: answer.statusCode ?? 502, headers: answer.headers, body: Buffer.concat(parts) });
            });
            answer.on('error', reject);
          });
          pending.add(call);
          call.on('error', (error) => {
            pending.delete(call);
            reject(error);
          });
          call.end(body);
        });
      handle(req, Buffer.concat(chunks), forward).then(
        (exchange) => {
          if (closed) return;
          res.writeHead(exchange.status, exchange.headers);
          res.end(exchange.body);
        },
        (error: Error) => {
          if (closed) return;
          if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
          res.end(`counting proxy: ${error.message}`);
        },
      );
    });
  });
}

async function listen(server: ReturnType<typeof createServer>): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const closer = (server: ReturnType<typeof createServer>, agent: Agent) => () =>
  new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
    agent.destroy();
  });

const targetOf = (req: IncomingMessage, prefix: RegExp): string => {
  const raw = req.headers['x-amz-target'];
  return (Array.isArray(raw) ? raw.join(',') : (raw ?? '(none)')).replace(prefix, '');
};

const parseJson = (body: Buffer): Record<string, unknown> | undefined => {
  if (body.length === 0) return undefined;
  try {
    const parsed = JSON.parse(body.toString('utf8')) as unknown;
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
};

interface ConsumedCapacity {
  CapacityUnits?: number;
  GlobalSecondaryIndexes?: Record<string, { CapacityUnits?: number }>;
  LocalSecondaryIndexes?: Record<string, { CapacityUnits?: number }>;
}

function localCapacity(answer: Record<string, unknown> | undefined): { total: number; index: number } | undefined {
  const raw = answer?.ConsumedCapacity as ConsumedCapacity | ConsumedCapacity[] | undefined;
  if (!raw) return undefined;
  const list = Array.isArray(raw) ? raw : [raw];
  let total = 0;
  let index = 0;
  for (const c of list) {
    total += c.CapacityUnits ?? 0;
    for (const i of Object.values({ ...c.GlobalSecondaryIndexes, ...c.LocalSecondaryIndexes })) index += i.CapacityUnits ?? 0;
  }
  return { total, index };
}

/**
 * A DynamoDB Local proxy; with `consumedCapacity` it records capacity per
 * call. What DynamoDB Local 3.x reports was checked against the AWS rules
 * (1 write unit per KB, 1 read unit per 4 KB strongly consistent, half that
 * eventually consistent, index copies billed as writes): single-item and
 * batch calls match, so their figure is taken as reported. Three cases do
 * not, and are computed here instead:
 * transactions (DynamoDB Local's figure for TransactWriteItems is
 * inconsistent: two 1 KB items reported as 2 units, not 4), conditional
 * writes that fail (reported as nothing; AWS bills the existing item), and
 * Queries that read nothing (reported as 0; billed here at the minimum).
 */
export async function startCountingProxy(upstream: string, options: DynamoProxyOptions = {}): Promise<DynamoCountingProxy> {
  const agent = new Agent({ keepAlive: true });
  const sideAgent = new Agent({ keepAlive: true });
  const target = new URL(upstream);
  const [pkName, skName] = options.keyAttributes ?? ['pk', 'sk'];
  const indexKeys = options.indexKeys ?? [['gsi1pk', 'gsi1sk']];
  let consumedCapacity = options.consumedCapacity ?? false;
  let sizing = options.sizing ?? false;
  let total = 0;
  let inFlight = 0;
  let targets = new Map<string, number>();
  let calls: DynamoCall[] = [];

  const hasIndexKeys = (item: WireItem | undefined) => !!item && indexKeys.some((attrs) => attrs.every((a) => a in item));

  /** A strongly consistent GetItem straight to DynamoDB Local: not counted, not seen by the service. */
  const sideGet = (tableName: string, key: WireItem): Promise<WireItem | undefined> =>
    new Promise((resolve) => {
      const body = Buffer.from(JSON.stringify({ TableName: tableName, Key: key, ConsistentRead: true }));
      const call = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          method: 'POST',
          path: '/',
          agent: sideAgent,
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

  const keyOf = (item: WireItem): WireItem => ({ [pkName]: item[pkName]!, [skName]: item[skName]! });

  /** Table and key of each item a TransactWriteItems touches. */
  const transactTargets = (request: Record<string, unknown>) =>
    ((request.TransactItems as Array<Record<string, Record<string, unknown>>>) ?? []).map((entry) => {
      const [action, spec] = Object.entries(entry)[0] ?? ['Unknown', {}];
      const key = action === 'Put' ? keyOf(spec.Item as WireItem) : (spec.Key as WireItem);
      return { action, tableName: String(spec.TableName), key };
    });

  const server = forwardingServer(upstream, agent, async (req, body, forward) => {
    total++;
    inFlight++;
    const op = targetOf(req, /^DynamoDB_\d+\./);
    targets.set(op, (targets.get(op) ?? 0) + 1);
    const startedAt = Date.now();
    try {
      const request = parseJson(body);
      if (!consumedCapacity || !request || !CAPACITY_OPS.has(op)) {
        const exchange = await forward(body);
        calls.push({
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
        });
        return exchange;
      }
      const sized = sizing;
      const transaction = op === 'TransactWriteItems' ? transactTargets(request) : undefined;
      const before = sized && transaction ? await Promise.all(transaction.map((t) => sideGet(t.tableName, t.key))) : undefined;

      const exchange = await forward(Buffer.from(JSON.stringify({ ...request, ReturnConsumedCapacity: 'INDEXES' })));
      const answer = exchange.headers['content-encoding'] ? undefined : parseJson(exchange.body);
      const kind: DynamoCall['kind'] = READ_OPS.has(op) ? 'read' : WRITE_OPS.has(op) ? 'write' : 'other';
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
        kind,
        consistentRead,
        ...(local ? { localUnits: local.total, localIndexUnits: local.index } : {}),
        awsUnits: local?.total ?? 0,
        awsIndexUnits: local?.index ?? 0,
        basis: local ? 'local' : 'none',
      };

      if (exchange.status === 200) {
        if (transaction) {
          call.transactional = true;
          call.itemsWritten = transaction.length;
          if (sized) {
            const after = await Promise.all(
              transaction.map((t) => (t.action === 'Delete' || t.action === 'ConditionCheck' ? undefined : sideGet(t.tableName, t.key))),
            );
            let units = 0;
            let indexUnits = 0;
            let indexItems = 0;
            transaction.forEach((_, i) => {
              const size = Math.max(itemSize(before?.[i]), itemSize(after[i]));
              units += 2 * writeUnits(size);
              if (hasIndexKeys(before?.[i]) || hasIndexKeys(after[i])) {
                // Index copies of a transactional write counted at 2x too, as DynamoDB Local counts them.
                indexUnits += 2 * writeUnits(size);
                indexItems++;
              }
            });
            call.indexItemsWritten = indexItems;
            call.sizedUnits = units + indexUnits;
            call.awsUnits = units + indexUnits;
            call.awsIndexUnits = indexUnits;
            call.basis = 'sized-transaction';
          }
        } else if (SINGLE_WRITES.has(op)) {
          call.itemsWritten = 1;
          if (sized) {
            const tableName = String(request.TableName);
            const key = op === 'PutItem' ? keyOf(request.Item as WireItem) : (request.Key as WireItem);
            const after = op === 'DeleteItem' ? undefined : op === 'PutItem' ? (request.Item as WireItem) : await sideGet(tableName, key);
            if (after) {
              const indexed = hasIndexKeys(after);
              call.indexItemsWritten = indexed ? 1 : 0;
              // The after image only: an update is billed on the larger of before and after, so this is a lower bound.
              call.sizedUnits = writeUnits(itemSize(after)) * (indexed ? 2 : 1);
            }
          }
        } else if (op === 'BatchWriteItem') {
          const requests = Object.values((request.RequestItems as Record<string, Array<Record<string, { Item?: WireItem }>>>) ?? {}).flat();
          call.itemsWritten = requests.length;
          call.indexItemsWritten = requests.filter((r) => hasIndexKeys(r.PutRequest?.Item)).length;
          call.sizedUnits = requests.reduce((sum, r) => {
            const item = r.PutRequest?.Item;
            return sum + (item ? writeUnits(itemSize(item)) * (hasIndexKeys(item) ? 2 : 1) : 1);
          }, 0);
        } else if (request.ProjectionExpression || request.AttributesToGet) {
          // Reads are billed on whole items whatever the projection; the answer holds only the projected part, so no size check.
        } else if (op === 'GetItem') {
          call.sizedUnits = readUnits(itemSize(answer?.Item as WireItem | undefined), consistentRead);
        } else if (op === 'Query' && !request.FilterExpression) {
          const items = (answer?.Items as WireItem[] | undefined) ?? [];
          call.sizedUnits = readUnits(
            items.reduce((sum, item) => sum + itemSize(item), 0),
            consistentRead,
          );
        } else if (
          op === 'BatchGetItem' &&
          !Object.values((request.RequestItems as Record<string, { ProjectionExpression?: string }>) ?? {}).some((r) => r.ProjectionExpression)
        ) {
          const found = Object.values((answer?.Responses as Record<string, WireItem[]>) ?? {}).flat();
          call.sizedUnits = found.reduce((sum, item) => sum + readUnits(itemSize(item), consistentRead), 0);
        }
        if (op === 'Query' && (local?.total ?? 0) === 0) {
          call.awsUnits = consistentRead ? 1 : 0.5;
          call.awsIndexUnits = 0;
          call.basis = 'minimum-read';
        }
      } else if (errorType === 'ConditionalCheckFailedException' && SINGLE_WRITES.has(op)) {
        call.itemsWritten = 0;
        call.indexItemsWritten = 0;
        if (sized) {
          const key = op === 'PutItem' ? keyOf(request.Item as WireItem) : (request.Key as WireItem);
          call.awsUnits = writeUnits(itemSize(await sideGet(String(request.TableName), key)));
          call.basis = 'sized-failed-condition';
        } else {
          call.awsUnits = 1;
          call.basis = 'minimum-write';
        }
        call.awsIndexUnits = 0;
      } else if (errorType === 'TransactionCanceledException' && transaction) {
        call.transactional = true;
        call.itemsWritten = 0;
        call.indexItemsWritten = 0;
        call.awsUnits = before ? before.reduce((sum, item) => sum + 2 * writeUnits(itemSize(item)), 0) : 2 * transaction.length;
        call.awsIndexUnits = 0;
        call.basis = before ? 'sized-failed-transaction' : 'minimum-write';
      }
      call.endedAt = Date.now();
      calls.push(call);
      return exchange;
    } finally {
      inFlight--;
    }
  });
  const url = await listen(server);
  const close = closer(server, agent);
  return {
    url,
    get total() {
      return total;
    },
    get inFlight() {
      return inFlight;
    },
    get calls() {
      return calls;
    },
    byTarget: () => Object.fromEntries([...targets].sort((a, b) => b[1] - a[1])),
    reset() {
      total = 0;
      targets = new Map();
      calls = [];
    },
    configure(next) {
      if (next.sizing !== undefined) sizing = next.sizing;
      if (next.consumedCapacity !== undefined) consumedCapacity = next.consumedCapacity;
    },
    close: async () => {
      await close();
      sideAgent.destroy();
    },
  };
}

/** SQS bills each 64 KB chunk of a request's payload as one request. */
export const SQS_CHUNK_BYTES = 64 * 1024;

export interface SqsCall {
  action: string;
  queueUrl: string;
  startedAt: number;
  endedAt: number;
  status: number;
  messagesSent: number;
  messagesReceived: number;
  /** Message bodies and attributes sent (sends) or received (receives), in bytes. */
  payloadBytes: number;
  /** Billable requests: one per started 64 KB of payload, at least one. */
  billedRequests: number;
}

export interface SqsCountingProxy extends CountingProxy {
  readonly calls: readonly SqsCall[];
  /** Calls in flight other than ReceiveMessage (which long-polls). */
  readonly inFlightNonReceive: number;
}

const attributesSize = (attributes: unknown): number =>
  Object.entries((attributes as Record<string, Record<string, string>>) ?? {}).reduce(
    (sum, [name, value]) =>
      sum + Buffer.byteLength(name) + Buffer.byteLength(value.DataType ?? '') + Buffer.byteLength(value.StringValue ?? value.BinaryValue ?? ''),
    0,
  );

/** An SQS emulator proxy recording every call (JSON protocol: `X-Amz-Target: AmazonSQS.<Action>`). */
export async function startSqsCountingProxy(upstream: string): Promise<SqsCountingProxy> {
  const agent = new Agent({ keepAlive: true });
  let total = 0;
  let inFlightNonReceive = 0;
  let targets = new Map<string, number>();
  let calls: SqsCall[] = [];
  const server = forwardingServer(upstream, agent, async (req, body, forward) => {
    total++;
    const action = targetOf(req, /^AmazonSQS\./);
    targets.set(action, (targets.get(action) ?? 0) + 1);
    const isReceive = action === 'ReceiveMessage';
    if (!isReceive) inFlightNonReceive++;
    const startedAt = Date.now();
    try {
      const request = parseJson(body) ?? {};
      const exchange = await forward(body);
      const answer = parseJson(exchange.body) ?? {};
      let messagesSent = 0;
      let messagesReceived = 0;
      let payloadBytes = 0;
      if (action === 'SendMessage') {
        messagesSent = 1;
        payloadBytes = Buffer.byteLength(String(request.MessageBody ?? '')) + attributesSize(request.MessageAttributes);
      } else if (action === 'SendMessageBatch') {
        const entries = (request.Entries as Array<Record<string, unknown>>) ?? [];
        messagesSent = entries.length;
        payloadBytes = entries.reduce((sum, e) => sum + Buffer.byteLength(String(e.MessageBody ?? '')) + attributesSize(e.MessageAttributes), 0);
      } else if (isReceive) {
        const messages = (answer.Messages as Array<Record<string, unknown>>) ?? [];
        messagesReceived = messages.length;
        payloadBytes = messages.reduce((sum, m) => sum + Buffer.byteLength(String(m.Body ?? '')) + attributesSize(m.MessageAttributes), 0);
      }
      calls.push({
        action,
        queueUrl: String(request.QueueUrl ?? ''),
        startedAt,
        endedAt: Date.now(),
        status: exchange.status,
        messagesSent,
        messagesReceived,
        payloadBytes,
        billedRequests: Math.max(1, Math.ceil(payloadBytes / SQS_CHUNK_BYTES)),
      });
      return exchange;
    } finally {
      if (!isReceive) inFlightNonReceive--;
    }
  });
  const url = await listen(server);
  const close = closer(server, agent);
  return {
    url,
    get total() {
      return total;
    },
    get calls() {
      return calls;
    },
    get inFlightNonReceive() {
      return inFlightNonReceive;
    },
    byTarget: () => Object.fromEntries([...targets].sort((a, b) => b[1] - a[1])),
    reset() {
      total = 0;
      targets = new Map();
      calls = [];
    },
    close,
  };
}
