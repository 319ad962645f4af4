import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { isTerminalRequest } from '#execution/model.js';
import { purposeOf } from '../support/call-purpose.js';
import type { DynamoCall } from '../support/dynamo-billing.js';
import type { EngineStack } from '../support/engine-stack.js';
import { lineWriter, log, ms, num, times } from '../support/format.js';
import { apiClient, type Running, setRequestRate, signIn } from '../support/local-stack.js';
import type { SqsCall } from '../support/sqs-proxy.js';
import { median, type Spread, spread, sum } from '../support/stats.js';
import { isEmptyReceive, untilQuiet } from '../support/workflow-run.js';
import { createVersion, type Shape } from '../support/workflow-shapes.js';
import { sqsBaseline } from './latency.js';

/**
 * Section 8: webhooks. 8.1 inbound: a signed event to a hook
 * (`POST /v1/hooks/{id}/events`) until its request's first node starts,
 * against `POST /v1/workflow-requests/run` starting the same version, and
 * what the event adds in DynamoDB and SQS requests. 8.2 outbound: a
 * workflow request's `completed_at` to its `workflow_request.completed`
 * delivery arriving at a receiver in the bench's process, against one bare
 * SQS hop, and the requests a delivery costs.
 */

interface Observation {
  requestId: string;
  status: string;
  /** Client send → the first node's `started_at`, and → the request's `completed_at` (same process clock). */
  toFirstNodeMs: number;
  toCompletedMs: number;
  answerMs: number;
  completedAt: number;
  ddb: DynamoCall[];
  sqs: SqsCall[];
}

/** Starts a request with `start` (answering its id) and waits until it is over, `extra()` holds, and the service is quiet. */
async function observe(b: EngineStack, start: () => Promise<string>, extra: (requestId: string) => boolean = () => true): Promise<Observation> {
  const d0 = b.ddb.calls.length;
  const s0 = b.sqs.calls.length;
  const sentAt = Date.now();
  const t0 = performance.now();
  const requestId = await start();
  const answerMs = performance.now() - t0;
  await untilQuiet(
    b,
    s0,
    async () => {
      const request = await b.repo.get(requestId);
      const done = !!request && isTerminalRequest(request.status) && extra(requestId);
      return { done, state: request ? `${request.status}${done ? '' : ' (waiting for its delivery)'}` : 'missing' };
    },
    `request ${requestId}`,
  );
  const request = await b.repo.get(requestId);
  const nodes = await b.repo.listNodes(requestId);
  const firstStart = Math.min(...nodes.filter((n) => n.started_at).map((n) => Date.parse(n.started_at!)));
  const completedAt = request?.completed_at ? Date.parse(request.completed_at) : Number.NaN;
  return {
    requestId,
    status: request?.status ?? 'missing',
    toFirstNodeMs: firstStart - sentAt,
    toCompletedMs: completedAt - sentAt,
    answerMs,
    completedAt,
    ddb: b.ddb.calls.slice(d0).filter((c) => c.kind !== 'other'),
    sqs: b.sqs.calls.slice(s0).filter((c) => !isEmptyReceive(c)),
  };
}

export interface PurposeCount {
  purpose: string;
  a: number;
  b: number;
}

/** Calls per observation by purpose (DynamoDB) or action and queue (SQS), for two sets of observations side by side; the ones that differ. */
function differences<T>(as: Observation[], bs: Observation[], pick: (o: Observation) => T[], name: (c: T) => string): PurposeCount[] {
  const count = (list: Observation[]) => {
    const m = new Map<string, number>();
    for (const c of list.flatMap(pick)) m.set(name(c), (m.get(name(c)) ?? 0) + 1 / list.length);
    return m;
  };
  const [ca, cb] = [count(as), count(bs)];
  return [...new Set([...ca.keys(), ...cb.keys()])]
    .map((purpose) => ({ purpose, a: ca.get(purpose) ?? 0, b: cb.get(purpose) ?? 0 }))
    .filter((p) => Math.abs(p.a - p.b) >= 0.05)
    .sort((x, y) => Math.abs(y.a - y.b) - Math.abs(x.a - x.b));
}

export interface Side {
  samples: number;
  statuses: Record<string, number>;
  toFirstNode: Spread;
  toCompleted: Spread;
  answerMs: number;
  dynamodbCalls: number;
  dynamodbReadUnits: number;
  dynamodbWriteUnits: number;
  sqsRequests: number;
}

const sideOf = (list: Observation[]): Side => {
  const statuses: Record<string, number> = {};
  for (const o of list) statuses[o.status] = (statuses[o.status] ?? 0) + 1;
  return {
    samples: list.length,
    statuses,
    toFirstNode: spread(list.map((o) => o.toFirstNodeMs)),
    toCompleted: spread(list.map((o) => o.toCompletedMs)),
    answerMs: median(list.map((o) => o.answerMs)),
    dynamodbCalls: median(list.map((o) => o.ddb.length)),
    dynamodbReadUnits: median(list.map((o) => sum(o.ddb.filter((c) => c.kind === 'read').map((c) => c.awsUnits)))),
    dynamodbWriteUnits: median(list.map((o) => sum(o.ddb.filter((c) => c.kind === 'write').map((c) => c.awsUnits)))),
    sqsRequests: median(list.map((o) => sum(o.sqs.map((c) => c.billedRequests)))),
  };
};

export interface InboundResult {
  event: Side;
  run: Side;
  ratio: { toFirstNode: { median: number; p95: number }; toCompleted: number };
  dynamodb: PurposeCount[];
  sqs: PurposeCount[];
}

export interface OutboundResult {
  samples: number;
  sqsBaseline: Spread;
  /** `completed_at` → the delivery at the receiver. */
  delivery: Spread;
  ratio: { median: number; p95: number };
  withEndpoint: Side;
  without: Side;
  dynamodb: PurposeCount[];
  sqs: PurposeCount[];
  deliveriesReceived: number;
  verified: number;
}

export interface WebhooksResults {
  shape: string;
  inbound: InboundResult;
  outbound: OutboundResult;
}

const queueName = (b: EngineStack) => {
  const names = new Map(b.stack.queues.flatMap((q) => [[q.url, q.definition.name] as const, [q.dlqUrl, `${q.definition.name} DLQ`] as const]));
  return (c: SqsCall) => `${c.action} ${names.get(c.queueUrl) ?? 'other queue'}`;
};

/** 8.1: `samples` events and as many runs of the same version, alternating which goes first, after one unrecorded of each. */
async function measureInbound(b: EngineStack, chain: Shape, samples: number): Promise<InboundResult> {
  log(`webhooks: inbound, ${samples} signed events against ${samples} POST /v1/workflow-requests/run of the ${chain.title}`);
  const hook = await b.api('POST', '/v1/hooks', { name: 'bench', workflow_version_id: chain.versionId, entry_node_ids: chain.entryNodeIds });
  if (hook.status !== 201) throw new Error(`POST /v1/hooks answered ${hook.status}: ${JSON.stringify(hook.body)}`);
  const signer = new Webhook(hook.body.secret as string);
  const eventsUrl = `${b.stack.url}/v1/hooks/${hook.body.id}/events`;
  const payload = { order_id: 'ord_bench', qty: 3, price: 7 };
  const viaHook = async () => {
    const id = `msg_${randomUUID()}`;
    const at = new Date();
    const body = JSON.stringify(payload);
    const response = await fetch(eventsUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': signer.sign(id, at, body),
      },
      body,
    });
    const answer = (await response.json()) as { workflow_request_id?: string };
    if (response.status !== 202 || !answer.workflow_request_id)
      throw new Error(`POST /v1/hooks/{id}/events answered ${response.status}: ${JSON.stringify(answer)}`);
    return answer.workflow_request_id;
  };
  const viaRun = async () => {
    const started = await b.api('POST', '/v1/workflow-requests/run', { workflow_version_id: chain.versionId, entry_node_ids: chain.entryNodeIds, payload });
    if (started.status !== 202) throw new Error(`POST /v1/workflow-requests/run answered ${started.status}: ${JSON.stringify(started.body)}`);
    return started.body.workflow_request_id as string;
  };
  await observe(b, viaHook);
  await observe(b, viaRun);
  const events: Observation[] = [];
  const runs: Observation[] = [];
  for (let i = 0; i < samples; i++) {
    if (i % 2 === 0) {
      events.push(await observe(b, viaHook));
      runs.push(await observe(b, viaRun));
    } else {
      runs.push(await observe(b, viaRun));
      events.push(await observe(b, viaHook));
    }
  }
  const event = sideOf(events);
  const run = sideOf(runs);
  return {
    event,
    run,
    ratio: {
      toFirstNode: { median: event.toFirstNode.median / run.toFirstNode.median, p95: event.toFirstNode.p95 / run.toFirstNode.p95 },
      toCompleted: event.toCompleted.median / run.toCompleted.median,
    },
    dynamodb: differences(events, runs, (o) => o.ddb, purposeOf),
    sqs: differences(events, runs, (o) => o.sqs, queueName(b)),
  };
}

/** A receiver on 127.0.0.1 that notes when each request arrived, and what it held. */
async function startReceiver(running: Running) {
  const arrivals: Array<{ at: number; body: string; headers: Record<string, string> }> = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const headers = Object.fromEntries(['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => [h, String(request.headers[h] ?? '')]));
      arrivals.push({ at: Date.now(), body: Buffer.concat(chunks).toString('utf8'), headers });
      response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  running.add(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, arrivals };
}

/**
 * 8.2: a second account with an endpoint subscribed to
 * `workflow_request.completed` at the receiver; `samples` runs of the
 * chain on it and as many on the bench's account (no endpoint), interleaved.
 */
async function measureOutbound(b: EngineStack, chain: Shape, samples: number, running: Running): Promise<OutboundResult> {
  log(`webhooks: outbound, ${samples} deliveries against ${samples} runs without an endpoint and ${samples} bare SQS hops`);
  const receiver = await startReceiver(running);
  const other = await signIn(b.stack.url, b.direct, { duration_minutes: 120 });
  await setRequestRate(b.direct, other.accountId, 1000);
  const api = apiClient(b.stack.url, other.token);
  const endpoint = await api('POST', '/v1/webhook-endpoints', { url: `${receiver.url}/bench`, events: ['workflow_request.completed'] });
  if (endpoint.status !== 201) throw new Error(`POST /v1/webhook-endpoints answered ${endpoint.status}: ${JSON.stringify(endpoint.body)}`);
  const theirs: Shape = { ...chain, versionId: undefined, entryNodeIds: undefined };
  await createVersion(api, theirs);
  const arrivalOf = (requestId: string) => receiver.arrivals.find((a) => a.body.includes(requestId));
  const run = (who: typeof api, s: Shape) => async () => {
    const started = await who('POST', '/v1/workflow-requests/run', { workflow_version_id: s.versionId, entry_node_ids: s.entryNodeIds });
    if (started.status !== 202) throw new Error(`POST /v1/workflow-requests/run answered ${started.status}: ${JSON.stringify(started.body)}`);
    return started.body.workflow_request_id as string;
  };
  const delivered = (requestId: string) => !!arrivalOf(requestId);
  await observe(b, run(api, theirs), delivered);
  await observe(b, run(b.api, chain));
  const withEndpoint: Observation[] = [];
  const without: Observation[] = [];
  for (let i = 0; i < samples; i++) {
    if (i % 2 === 0) {
      withEndpoint.push(await observe(b, run(api, theirs), delivered));
      without.push(await observe(b, run(b.api, chain)));
    } else {
      without.push(await observe(b, run(b.api, chain)));
      withEndpoint.push(await observe(b, run(api, theirs), delivered));
    }
  }
  const hops = withEndpoint.map((o) => arrivalOf(o.requestId)!.at - o.completedAt);
  const signer = new Webhook(endpoint.body.secret as string);
  let verified = 0;
  for (const o of withEndpoint) {
    const arrival = arrivalOf(o.requestId)!;
    try {
      signer.verify(arrival.body, arrival.headers);
      verified++;
    } catch {
      // counted as not verified
    }
  }
  const baseline = spread(await sqsBaseline(b, samples));
  const delivery = spread(hops);
  return {
    samples,
    sqsBaseline: baseline,
    delivery,
    ratio: { median: delivery.median / baseline.median, p95: delivery.p95 / baseline.p95 },
    withEndpoint: sideOf(withEndpoint),
    without: sideOf(without),
    dynamodb: differences(withEndpoint, without, (o) => o.ddb, purposeOf),
    sqs: differences(withEndpoint, without, (o) => o.sqs, queueName(b)),
    deliveriesReceived: withEndpoint.filter((o) => arrivalOf(o.requestId)).length,
    verified,
  };
}

/** Both, on the stack: the chain's version made (and warmed) by the caller. */
export async function measureWebhooks(b: EngineStack, chain: Shape, samples: number, running: Running): Promise<WebhooksResults> {
  // Events and runs back to back, past a pro account's 20 requests per second: what is measured is the path.
  await setRequestRate(b.direct, b.accountId, 1000);
  try {
    const inbound = await measureInbound(b, chain, samples);
    const outbound = await measureOutbound(b, chain, samples, running);
    return { shape: chain.title, inbound, outbound };
  } finally {
    await setRequestRate(b.direct, b.accountId, undefined);
  }
}

const counts = (list: PurposeCount[], a: string, bName: string) =>
  list.length ? list.map((p) => `${p.purpose}: ${num(p.a, 1)} ${a}, ${num(p.b, 1)} ${bName}`).join('; ') : 'none';

/** `shared`: the section measured on the same stack before it (7), when it was. */
export function renderWebhooksSection(w: WebhooksResults, section: number, seconds: number, shared?: number): string[] {
  const { lines, out } = lineWriter();
  const i = w.inbound;
  const o = w.outbound;
  out(`## ${section}. Webhooks`);
  out();
  out(
    `Measured ${shared ? `on the same local stack as section ${shared}, in the same process (${num(seconds, 0)} s for both)` : `on a local stack of its own in a process of its own (bench/money-process.ts, ${num(seconds, 0)} s), set up as section 4's`}; the workflow is the ${w.shape} of section 4, its version made and warmed with one unrecorded run first.`,
  );
  out();
  out(`### ${section}.1 Inbound: a signed event to its request's first node`);
  out();
  out(
    '| Start | Samples | Send → first node started: median | p95 | Send → request completed: median | HTTP answer median | DynamoDB calls | RRU | WRU | SQS requests |',
  );
  out('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const [label, s] of [
    ['`POST /v1/hooks/{id}/events`, signed (Standard Webhooks)', i.event],
    ['`POST /v1/workflow-requests/run`, bearer token', i.run],
  ] as const) {
    out(
      `| ${label} | ${s.samples} | ${ms(s.toFirstNode.median)} | ${ms(s.toFirstNode.p95)} | ${ms(s.toCompleted.median)} | ${ms(s.answerMs)} | ${num(s.dynamodbCalls, 0)} | ${num(s.dynamodbReadUnits, 1)} | ${num(s.dynamodbWriteUnits, 1)} | ${num(s.sqsRequests, 0)} |`,
    );
  }
  out(
    `| **event ÷ run** | | **${times(i.ratio.toFirstNode.median)}** | **${times(i.ratio.toFirstNode.p95)}** | ${times(i.ratio.toCompleted)} | ${times(i.event.answerMs / i.run.answerMs)} | ${num(i.event.dynamodbCalls - i.run.dynamodbCalls, 0)} more | ${num(i.event.dynamodbReadUnits - i.run.dynamodbReadUnits, 1)} more | ${num(i.event.dynamodbWriteUnits - i.run.dynamodbWriteUnits, 1)} more | ${num(i.event.sqsRequests - i.run.sqsRequests, 0)} more |`,
  );
  out();
  out(
    `What the event does that the run does not, per request (calls by purpose, event against run): DynamoDB ${counts(i.dynamodb, 'per event', 'per run')}. SQS: ${counts(i.sqs, 'per event', 'per run')}.`,
  );
  out();
  out(
    `**How measured.** A hook of the bench's account (\`POST /v1/hooks\`) starts the chain's version at its entry node; each event is a fresh \`webhook-id\` signed with the hook's secret by \`standardwebhooks\` (\`new Webhook(secret).sign(id, date, body)\`) and posted without a token; each run is \`POST /v1/workflow-requests/run\` of the same version, entry nodes and payload with the bearer token. ${i.event.samples} of each, alternating which goes first, after one unrecorded of each, one at a time, each watched until its request was over and the service quiet, so the calls the counting proxies saw in its window are its own. The marker is the first node execution's \`started_at\` (the handlers run in the bench's process: one clock), from just before the client sent the request; the request's \`completed_at\` is shown too. The account's request rate was raised for the section (\`account:set-limits --rps\`); hook events are not rate limited.`,
  );
  out();
  out(`### ${section}.2 Outbound: a request's end to its delivery`);
  out();
  out('| Measure | Samples | Median | p95 | Min | Max | **Median ÷ baseline** | **p95 ÷ baseline** |');
  out('|---|---:|---:|---:|---:|---:|---:|---:|');
  out(
    `| \`completed_at\` → \`workflow_request.completed\` at the receiver | ${o.samples} | ${ms(o.delivery.median)} | ${ms(o.delivery.p95)} | ${ms(o.delivery.min)} | ${ms(o.delivery.max)} | **${times(o.ratio.median)}** | **${times(o.ratio.p95)}** |`,
  );
  out(
    `| baseline: one bare SQS hop (SendMessage, long-poll ReceiveMessage) on the same emulator | ${o.samples} | ${ms(o.sqsBaseline.median)} | ${ms(o.sqsBaseline.p95)} | ${ms(o.sqsBaseline.min)} | ${ms(o.sqsBaseline.max)} | 1.00× | 1.00× |`,
  );
  out();
  out('| Requests per workflow request | DynamoDB calls | RRU | WRU | SQS requests |');
  out('|---|---:|---:|---:|---:|');
  out(
    `| with an endpoint subscribed (one delivery) | ${num(o.withEndpoint.dynamodbCalls, 0)} | ${num(o.withEndpoint.dynamodbReadUnits, 1)} | ${num(o.withEndpoint.dynamodbWriteUnits, 1)} | ${num(o.withEndpoint.sqsRequests, 0)} |`,
  );
  out(
    `| without one | ${num(o.without.dynamodbCalls, 0)} | ${num(o.without.dynamodbReadUnits, 1)} | ${num(o.without.dynamodbWriteUnits, 1)} | ${num(o.without.sqsRequests, 0)} |`,
  );
  out(
    `| **a delivery adds** | **${num(o.withEndpoint.dynamodbCalls - o.without.dynamodbCalls, 0)}** | **${num(o.withEndpoint.dynamodbReadUnits - o.without.dynamodbReadUnits, 1)}** | **${num(o.withEndpoint.dynamodbWriteUnits - o.without.dynamodbWriteUnits, 1)}** | **${num(o.withEndpoint.sqsRequests - o.without.sqsRequests, 0)}** |`,
  );
  out();
  out(
    `By purpose (with against without, per request): DynamoDB ${counts(o.dynamodb, 'with', 'without')}. SQS: ${counts(o.sqs, 'with', 'without')}. ${o.deliveriesReceived} of ${o.samples} deliveries arrived; ${o.verified} verified with the endpoint's secret (\`standardwebhooks\`).`,
  );
  out();
  out(
    `**How measured.** A second pro account has one endpoint (\`POST /v1/webhook-endpoints\`, events \`workflow_request.completed\`) whose url is a node http server in the bench's process on 127.0.0.1 (the process sets \`OUTBOUND_ALLOWED_HOSTS=127.0.0.1\` and \`OUTBOUND_ALLOW_INSECURE=true\` before the stack starts), answering 200 at once and noting when each request arrived. The chain ran ${o.samples} times on that account and ${o.samples} times on the bench's account (no endpoint), alternating, one at a time, each watched until the request was over, its delivery (if any) had arrived, and the service was quiet; what a delivery costs is the difference of the medians. The delivery time is from the request's \`completed_at\` (written by the handler in this process) to the arrival, the path being the end's transaction writing the account event, the \`webhook-events\` notice, the dispatcher, the \`webhook-deliveries\` message and the delivery worker's POST. The baseline is section 4.2's: SendMessage then a long-poll ReceiveMessage of it on a queue of the same emulator through the same proxy, ${o.samples} times after one unrecorded.`,
  );
  out();
  return lines;
}

export const webhooksSummaryLines = (w: WebhooksResults): string[] => [
  `Inbound webhook event to its request's first node: ${times(w.inbound.ratio.toFirstNode.median)} \`POST /v1/workflow-requests/run\` at the median (${ms(w.inbound.event.toFirstNode.median)} against ${ms(w.inbound.run.toFirstNode.median)}), ${times(w.inbound.ratio.toFirstNode.p95)} at p95; ${num(w.inbound.event.dynamodbCalls - w.inbound.run.dynamodbCalls, 0)} more DynamoDB calls (${num(w.inbound.event.dynamodbWriteUnits - w.inbound.run.dynamodbWriteUnits, 1)} WRU) and ${num(w.inbound.event.sqsRequests - w.inbound.run.sqsRequests, 0)} more SQS requests per event`,
  `Outbound delivery, \`completed_at\` to arrival: ${ms(w.outbound.delivery.median)} median, ${times(w.outbound.ratio.median)} one bare SQS hop (${ms(w.outbound.sqsBaseline.median)}); a delivery adds ${num(w.outbound.withEndpoint.dynamodbCalls - w.outbound.without.dynamodbCalls, 0)} DynamoDB calls (${num(w.outbound.withEndpoint.dynamodbWriteUnits - w.outbound.without.dynamodbWriteUnits, 1)} WRU, ${num(w.outbound.withEndpoint.dynamodbReadUnits - w.outbound.without.dynamodbReadUnits, 1)} RRU) and ${num(w.outbound.withEndpoint.sqsRequests - w.outbound.without.sqsRequests, 0)} SQS requests`,
];

export const webhooksConsoleLines = (w: WebhooksResults): string[] => [
  'Webhooks:',
  `  inbound event → first node  ${ms(w.inbound.event.toFirstNode.median)} (p95 ${ms(w.inbound.event.toFirstNode.p95)}) vs run ${ms(w.inbound.run.toFirstNode.median)} (p95 ${ms(w.inbound.run.toFirstNode.p95)}): ${times(w.inbound.ratio.toFirstNode.median)} / ${times(w.inbound.ratio.toFirstNode.p95)}`,
  `  per event: DynamoDB ${num(w.inbound.event.dynamodbCalls, 0)} vs ${num(w.inbound.run.dynamodbCalls, 0)} calls, SQS ${num(w.inbound.event.sqsRequests, 0)} vs ${num(w.inbound.run.sqsRequests, 0)}`,
  `  outbound completed_at → delivery ${ms(w.outbound.delivery.median)} (p95 ${ms(w.outbound.delivery.p95)}) vs SQS hop ${ms(w.outbound.sqsBaseline.median)}: ${times(w.outbound.ratio.median)} / ${times(w.outbound.ratio.p95)}`,
  `  per delivery: DynamoDB +${num(w.outbound.withEndpoint.dynamodbCalls - w.outbound.without.dynamodbCalls, 0)} calls, SQS +${num(w.outbound.withEndpoint.sqsRequests - w.outbound.without.sqsRequests, 0)}; ${w.outbound.deliveriesReceived}/${w.outbound.samples} arrived, ${w.outbound.verified} verified`,
];
