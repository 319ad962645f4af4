import { floorUnits, purposeOf } from '../support/call-purpose.js';
import type { DynamoCall } from '../support/dynamo-billing.js';
import type { EngineStack } from '../support/engine-stack.js';
import { log } from '../support/format.js';
import { type FunctionMemory, PRICES, TARGET_USD_PER_MILLION_NODES } from '../support/prices.js';
import type { SqsCall } from '../support/sqs-proxy.js';
import { median, sum, tally } from '../support/stats.js';
import { isEmptyReceive, observeRun, type RunObservation } from '../support/workflow-run.js';
import { createVersion, type Shape, type ShapeName } from '../support/workflow-shapes.js';
import { type CalibrationRow, calibrate, type LocalChecks, localChecks } from './dynamodb-local-checks.js';

/**
 * Section 4.1: the engine's cost per million node executions at AWS list
 * prices, from the DynamoDB request units, SQS requests and Lambda
 * invocations counted while each workflow shape runs on the local stack.
 */

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
  shape: ShapeName;
  title: string;
  /** USD per million node executions this shape must stay within. */
  target: number;
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

export interface CostResults {
  calibration: CalibrationRow[];
  runsPerShape: number;
  memory: FunctionMemory;
  prices: typeof PRICES;
  target: number;
  shapes: ShapeResult[];
  checks: LocalChecks;
}

/**
 * Worker invocations and their durations: each ReceiveMessage on the worker
 * queue that returned messages is one invocation of the worker (the local
 * poller invokes the handler once per received batch, as the event source
 * mapping does); it lasts until the poller's next call on that queue (the
 * DeleteMessageBatch after the handler, or the next receive).
 */
export function workerInvocations(all: readonly SqsCall[], window: readonly SqsCall[], queueUrl: string) {
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

/** DynamoDB calls of the observed windows by purpose, reads after writes, largest first. */
export function purposeRows(runs: ReadonlyArray<{ ddb: readonly DynamoCall[] }>): PurposeRow[] {
  const rows = new Map<string, PurposeRow>();
  for (const call of runs.flatMap((r) => r.ddb)) {
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
    tally(row.bases, call.basis);
    rows.set(purpose, row);
  }
  return [...rows.values()].sort((x, y) => (x.kind === y.kind ? y.awsUnits - x.awsUnits : x.kind === 'write' ? -1 : 1));
}

/** SQS calls of the observed windows by action and queue (`queueLabel` names it after the action); empty long polls counted apart. */
export function sqsUsage(runs: ReadonlyArray<{ sqs: readonly SqsCall[] }>, queueLabel: (queueUrl: string) => string): ShapeResult['sqs'] {
  const actions = new Map<string, { action: string; calls: number; billed: number; messages: number }>();
  let emptyReceives = 0;
  let emptyReceiveBilled = 0;
  for (const call of runs.flatMap((r) => r.sqs)) {
    if (isEmptyReceive(call)) {
      emptyReceives++;
      emptyReceiveBilled += call.billedRequests;
      continue;
    }
    const key = `${call.action}${queueLabel(call.queueUrl)}`;
    const a = actions.get(key) ?? { action: key, calls: 0, billed: 0, messages: 0 };
    a.calls++;
    a.billed += call.billedRequests;
    a.messages += call.messagesSent + call.messagesReceived;
    actions.set(key, a);
  }
  const list = [...actions.values()];
  return { actions: list.sort((x, y) => y.billed - x.billed), billed: sum(list.map((a) => a.billed)), emptyReceives, emptyReceiveBilled };
}

function summariseShape(b: EngineStack, s: Shape, runs: RunObservation[], memory: FunctionMemory): ShapeResult {
  const requestStatuses: Record<string, number> = {};
  const nodeStatuses: Record<string, number> = {};
  let nodesExecuted = 0;
  let workerInv = 0;
  let deadLetterInv = 0;
  let missing = 0;
  const workerDurations: number[] = [];
  for (const run of runs) {
    tally(requestStatuses, run.status);
    for (const n of run.nodes) {
      tally(nodeStatuses, n.status);
      if (n.status === 'completed') nodesExecuted++;
    }
    const w = workerInvocations(b.sqs.calls, run.sqs, b.workerQueueUrl);
    workerInv += w.invocations;
    workerDurations.push(...w.durations);
    missing += w.missing;
    deadLetterInv += workerInvocations(b.sqs.calls, run.sqs, b.deadLetterQueueUrl).invocations;
  }
  const purposes = purposeRows(runs);
  const sqs = sqsUsage(runs, (url) => (url === b.workerQueueUrl ? '' : url === b.deadLetterQueueUrl ? ' (DLQ)' : ' (other queue)'));
  const total = (kind: 'read' | 'write', field: 'awsUnits' | 'localUnits' | 'floorUnits') => sum(purposes.filter((p) => p.kind === kind).map((p) => p[field]));
  const units = {
    read: total('read', 'awsUnits'),
    write: total('write', 'awsUnits'),
    localRead: total('read', 'localUnits'),
    localWrite: total('write', 'localUnits'),
    floorWrite: total('write', 'floorUnits'),
    floorRead: total('read', 'floorUnits'),
  };
  // Durations not observed are counted at the median of those that were.
  const workerMsMedian = median(workerDurations);
  const workerMsTotal = sum(workerDurations) + missing * (Number.isFinite(workerMsMedian) ? workerMsMedian : 0);
  const apiDurations = runs.map((r) => Math.ceil(r.postMs));
  const apiMsTotal = sum(apiDurations);
  const gbSeconds = (workerMsTotal / 1000) * (memory.workerMb / 1024) + (apiMsTotal / 1000) * (memory.apiMb / 1024);
  const invocations = workerInv + deadLetterInv + runs.length;
  const perMillion = (usd: number) => (usd / Math.max(1, nodesExecuted)) * 1e6;
  const cost: CostComponents = {
    dynamodbWrites: perMillion(units.write * PRICES.dynamodbWriteRequestUnit),
    dynamodbReads: perMillion(units.read * PRICES.dynamodbReadRequestUnit),
    sqs: perMillion(sqs.billed * PRICES.sqsRequest),
    lambdaRequests: perMillion(invocations * PRICES.lambdaRequest),
    lambdaDuration: perMillion(gbSeconds * PRICES.lambdaArmGbSecond),
    total: 0,
  };
  cost.total = cost.dynamodbWrites + cost.dynamodbReads + cost.sqs + cost.lambdaRequests + cost.lambdaDuration;
  const floorWrites = perMillion(units.floorWrite * PRICES.dynamodbWriteRequestUnit);
  return {
    shape: s.shape,
    title: s.title,
    target: s.target,
    description: s.description,
    nodesPerRun: s.nodes.length,
    runs: runs.length,
    nodesExecuted,
    requestStatuses,
    nodeStatuses,
    purposes,
    units,
    sqs,
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

/**
 * Calibrates the proxy's figures against DynamoDB Local, creates each
 * shape's version and warms its handlers with one unrecorded run (leaving
 * both for the latency runs), then runs each shape `runs` times, one
 * request at a time, with item sizes read on the side.
 */
export async function measureEngineCost(b: EngineStack, all: Shape[], runs: number, memory: FunctionMemory): Promise<CostResults> {
  const calibration = await calibrate(b);
  for (const s of all) await createVersion(b.api, s);
  for (const s of all) await observeRun(b, s);

  log(`engine: cost, ${runs} runs per shape, one at a time (item sizes read on the side)`);
  b.ddb.configure({ sizing: true });
  const observed = new Map<Shape, RunObservation[]>();
  for (const s of all) {
    const list: RunObservation[] = [];
    for (let i = 0; i < runs; i++) list.push(await observeRun(b, s));
    observed.set(s, list);
  }
  return {
    calibration,
    runsPerShape: runs,
    memory,
    prices: PRICES,
    target: TARGET_USD_PER_MILLION_NODES,
    shapes: all.map((s) => summariseShape(b, s, observed.get(s)!, memory)),
    checks: localChecks([...observed.values()].flat()),
  };
}
