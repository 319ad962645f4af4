import { isTerminalRequest, type NodeExecution } from '#execution/model.js';
import type { DynamoCall } from './dynamo-billing.js';
import type { EngineStack } from './engine-stack.js';
import type { SqsCall } from './sqs-proxy.js';
import { sleep } from './wait.js';
import type { Shape } from './workflow-shapes.js';

/** One workflow request, started through the API and watched until it is over, with every call the proxies saw meanwhile. */
export interface RunObservation {
  requestId: string;
  status: string;
  /** Epoch ms just before the POST was sent (the handlers run in this process, so their timestamps are on the same clock). */
  postAt: number;
  /** The request's `completed_at`, epoch ms, when it has one. */
  completedAt: number | undefined;
  nodes: Array<Pick<NodeExecution, 'node_id' | 'status' | 'started_at' | 'completed_at'>>;
  ddb: DynamoCall[];
  sqs: SqsCall[];
  postMs: number;
  totalMs: number;
}

/** A run is over when its request is terminal and nothing but an empty long poll has happened for this long. */
export const QUIET_MS = 200;
export const isEmptyReceive = (c: SqsCall): boolean => c.action === 'ReceiveMessage' && c.messagesReceived === 0;

/**
 * Waits until `over()` holds and the service has gone quiet: no DynamoDB or
 * SQS call other than an empty long poll for QUIET_MS, so the work's
 * trailing writes and the poller's last delete fall inside its window.
 * `over()` should read with the bench's own uncounted client, so that
 * waiting adds nothing to the counts. `sqsFrom` is where the window's SQS
 * calls start.
 */
export async function untilQuiet(b: EngineStack, sqsFrom: number, over: () => Promise<{ done: boolean; state: string }>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  let signature = '';
  let quietSince = Date.now();
  for (;;) {
    await sleep(20);
    const nonEmpty = b.sqs.calls.length - b.sqs.calls.slice(sqsFrom).filter(isEmptyReceive).length;
    const now = `${b.ddb.calls.length}/${b.ddb.inFlight}/${nonEmpty}/${b.sqs.inFlight}`;
    if (now !== signature) {
      signature = now;
      quietSince = Date.now();
      continue;
    }
    if (Date.now() - quietSince < QUIET_MS) continue;
    const { done, state } = await over();
    if (done) return;
    if (Date.now() > deadline) throw new Error(`${what} still ${state} after 30 s`);
  }
}

/**
 * Starts one request through POST /run and waits until it is over and the
 * service has gone quiet (untilQuiet). Completion is checked with the
 * bench's own uncounted reads, not through the API.
 */
export async function observeRun(b: EngineStack, s: Shape): Promise<RunObservation> {
  const d0 = b.ddb.calls.length;
  const s0 = b.sqs.calls.length;
  const postAt = Date.now();
  const t0 = performance.now();
  const started = await b.api('POST', '/v1/workflow-requests/run', { workflow_version_id: s.versionId, entry_node_ids: s.entryNodeIds });
  const postMs = performance.now() - t0;
  if (started.status !== 202) throw new Error(`POST /v1/workflow-requests/run answered ${started.status}: ${JSON.stringify(started.body)}`);
  const requestId = started.body.workflow_request_id as string;
  await untilQuiet(
    b,
    s0,
    async () => {
      const request = await b.repo.get(requestId);
      return { done: !!request && isTerminalRequest(request.status), state: request?.status ?? 'missing' };
    },
    `request ${requestId}`,
  );
  const totalMs = performance.now() - t0;
  const request = await b.repo.get(requestId);
  const nodes = await b.repo.listNodes(requestId);
  return {
    requestId,
    status: request?.status ?? 'missing',
    postAt,
    completedAt: request?.completed_at ? Date.parse(request.completed_at) : undefined,
    nodes: nodes.map((n) => ({ node_id: n.node_id, status: n.status, started_at: n.started_at, completed_at: n.completed_at })),
    ddb: b.ddb.calls.slice(d0),
    sqs: b.sqs.calls.slice(s0),
    postMs,
    totalMs,
  };
}
