import { randomUUID } from 'node:crypto';
import { CreateQueueCommand, DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { EngineStack } from '../support/engine-stack.js';
import { lineWriter, log, ms, num } from '../support/format.js';
import { median, percentile, type Spread, spread } from '../support/stats.js';
import { isEmptyReceive, observeRun, QUIET_MS, type RunObservation } from '../support/workflow-run.js';
import type { Shape, ShapeName } from '../support/workflow-shapes.js';

/** Section 4.2: how long a child node waits after its parent completed, against one bare SQS hop on the same emulator. */

export interface LatencyRow {
  shape: ShapeName;
  title: string;
  runs: number;
  hops: number;
  /** Hops during which a worker invocation received a batch from the queue (the child ran in another invocation). */
  queuedHops: number;
  /** Median counts of calls made between the parent's completed_at and the child's started_at. */
  callsPerHop: { dynamodb: number; sqs: number };
  hopMs: Spread;
  ratio: { median: number; p95: number };
  runMsMedian: number;
}

export interface LatencyResult {
  sqsBaseline: { samples: number } & Spread;
  rows: LatencyRow[];
}

interface Hop {
  ms: number;
  dynamodbCalls: number;
  sqsCalls: number;
  queued: boolean;
}

/** Each parent → child hop of a chain run, with the calls made in between (from the proxies' timestamps; same process clock). */
function hopsOf(run: RunObservation, chain: Shape['nodes']): Hop[] {
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
export async function sqsBaseline(b: EngineStack, samples: number): Promise<number[]> {
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

/** `runs` requests of each chain (versions created and handlers warm) without side reads, then `runs` bare SQS hops. */
export async function measureLatency(b: EngineStack, chains: Shape[], runs: number): Promise<LatencyResult> {
  log(`engine: latency, ${runs} runs of each chain without side reads, then ${runs} bare SQS hops`);
  b.ddb.configure({ sizing: false });
  const measured: Array<{ shape: Shape; runs: RunObservation[]; hops: Hop[] }> = [];
  for (const chain of chains) {
    const observed: RunObservation[] = [];
    for (let i = 0; i < runs; i++) observed.push(await observeRun(b, chain));
    measured.push({ shape: chain, runs: observed, hops: observed.flatMap((r) => hopsOf(r, chain.nodes)) });
  }
  const baseline = await sqsBaseline(b, runs);
  return {
    sqsBaseline: { samples: baseline.length, ...spread(baseline) },
    rows: measured.map(({ shape, runs: observed, hops: hopList }) => {
      const hops = hopList.map((h) => h.ms);
      return {
        shape: shape.shape,
        title: shape.title,
        runs: observed.length,
        hops: hops.length,
        queuedHops: hopList.filter((h) => h.queued).length,
        callsPerHop: { dynamodb: median(hopList.map((h) => h.dynamodbCalls)), sqs: median(hopList.map((h) => h.sqsCalls)) },
        hopMs: spread(hops),
        ratio: { median: median(hops) / median(baseline), p95: percentile(hops, 95) / median(baseline) },
        runMsMedian: median(observed.map((r) => r.totalMs)),
      };
    }),
  };
}

export function renderLatencySection(L: LatencyResult, section: number): string[] {
  const { lines, out } = lineWriter();
  const B = L.sqsBaseline;
  out(`### ${section}.2 Node → child latency`);
  out();
  out(
    `| Parent completed → child started | Hops | Through the queue | Median | p95 | Min / max | **Median ÷ bare SQS hop** | **p95 ÷ bare SQS hop** | Calls per hop (median): DynamoDB / SQS | Whole request, median |`,
  );
  out('|---|---:|---:|---:|---:|---|---:|---:|---|---:|');
  for (const r of L.rows) {
    out(
      `| ${r.title} | ${r.hops} in ${r.runs} requests | ${r.queuedHops} | ${ms(r.hopMs.median)} | ${ms(r.hopMs.p95)} | ${ms(r.hopMs.min)} / ${ms(r.hopMs.max)} | **${num(r.ratio.median, 1)}×** | **${num(r.ratio.p95, 1)}×** | ${num(r.callsPerHop.dynamodb, 0)} / ${num(r.callsPerHop.sqs, 0)} | ${ms(r.runMsMedian)} |`,
    );
  }
  out(
    `| _One bare SQS hop: SendMessage, then a long-poll ReceiveMessage that gets it_ | ${B.samples} | | ${ms(B.median)} | ${ms(B.p95)} | ${ms(B.min)} / ${ms(B.max)} | 1.0× | | | |`,
  );
  out();
  const how = (r: LatencyRow) =>
    r.queuedHops === 0
      ? `in the ${r.title} no hop went through the queue: every child ran in the worker invocation that completed its parent, so a hop is DynamoDB calls only`
      : r.queuedHops === r.hops
        ? `in the ${r.title} every hop went through the queue: each child ran in a worker invocation of its own`
        : `in the ${r.title} ${r.queuedHops} of ${r.hops} hops went through the queue; the rest ran inline in the parent's invocation`;
  const hows = L.rows.map(how).join('; ');
  out(
    `A hop is \`child.started_at − parent.completed_at\` from the node execution items (millisecond ISO timestamps), 9 per request, over requests run one at a time after the cost runs, with the proxies counting but not reading items on the side; "through the queue" means a worker invocation received a batch between the two timestamps, and the calls per hop are those the proxies saw between them. ${hows.charAt(0).toUpperCase() + hows.slice(1)}. The bare hop goes through the same SQS proxy to the same emulator, ${B.samples} times after one unrecorded warm-up. "Whole request" is \`POST /run\` to the end of its window, ${QUIET_MS} ms of which is the quiet wait. Absolute times are this machine's, against DynamoDB Local and fauxqs; the ratios are the claim.`,
  );
  out();
  return lines;
}

export const latencySummary = (L: LatencyResult): string =>
  `Node → child latency, median / p95 as multiples of one bare SQS send + receive on the same emulator (${ms(L.sqsBaseline.median)}): ${L.rows
    .map((r) => `${r.title} ${ms(r.hopMs.median)} / ${ms(r.hopMs.p95)} = ${num(r.ratio.median, 1)}× / ${num(r.ratio.p95, 1)}×`)
    .join('; ')}`;

export const latencyConsoleLines = (L: LatencyResult): string[] => [
  `Node → child latency (bare SQS hop ${ms(L.sqsBaseline.median)}):`,
  ...L.rows.map(
    (r) =>
      `  ${r.title.padEnd(34)} median ${ms(r.hopMs.median)}, p95 ${ms(r.hopMs.p95)}; ${num(r.ratio.median, 1)}× / ${num(r.ratio.p95, 1)}×; ${r.queuedHops} of ${r.hops} hops through the queue`,
  ),
];
