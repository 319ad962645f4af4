import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROUTES } from '#app/routes.js';
import { requestEventView } from '#execution/views.js';
import { pendingRequest } from '../../test/helpers/pending-request.js';
import type { EngineStack } from '../support/engine-stack.js';
import { lineWriter, log, ms, num, pct, usd4 } from '../support/format.js';
import { setRequestRate } from '../support/local-stack.js';
import type { FunctionMemory } from '../support/prices.js';
import { PRICES } from '../support/prices.js';
import { REPO_ROOT } from '../support/repo.js';
import { type Listener, openListener } from '../support/sse-client.js';
import { median, percentile, sum } from '../support/stats.js';
import { sleep, until } from '../support/wait.js';

/** Section 4.3: one request's live stream with many listeners: delivery lag, and the table reads the streams cost. */

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

export interface SseOptions {
  listeners: number;
  rate: number;
  seconds: number;
  memory: FunctionMemory;
}

const LISTEN_PATH = '/v1/workflow-requests/{id}/listen';

/** Every listener's lag per event, from the event's `created_at` to the frame's arrival, and the events it never got. */
function deliveries(listeners: Listener[], created: Map<string, number>) {
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
  return { lags, missing, complete };
}

/** Opens the listeners and waits for every snapshot; the reason if they could not all be had. */
async function connect(b: EngineStack, url: string, count: number): Promise<Listener[] | string> {
  const listeners = await Promise.all(Array.from({ length: count }, () => openListener(url, b.token)));
  const fail = (reason: string) => {
    for (const l of listeners) l.abort.abort();
    return reason;
  };
  const refused = listeners.find((l) => l.status !== 200);
  if (refused) return fail(`GET ${LISTEN_PATH} did not open a stream: ${String((refused.error as Error)?.message ?? refused.status)}`);
  const snapshotDone = (l: Listener) => l.frames.some((f) => f.json?.workflow_request);
  try {
    await until(() => listeners.every((l) => snapshotDone(l) || l.closed), 30_000, `the snapshot on ${count} listeners`);
  } catch (error) {
    return fail(`the listeners did not all receive the snapshot: ${(error as Error).message}`);
  }
  const broken = listeners.filter((l) => !snapshotDone(l));
  if (broken.length) {
    return fail(
      `${broken.length} of ${count} streams closed before their snapshot${broken[0]?.error ? ` (${String((broken[0].error as Error).message)})` : ''}`,
    );
  }
  return listeners;
}

export async function measureSse(b: EngineStack, options: SseOptions): Promise<SseOutcome> {
  const { listeners: count, rate, seconds } = options;
  const route = ROUTES.find((r) => r.path === LISTEN_PATH);
  if (!route) return { measured: false, reason: `no route for GET ${LISTEN_PATH} in lib/app/routes.ts` };
  if (!existsSync(join(REPO_ROOT, route.entry))) return { measured: false, reason: `${route.entry} does not exist` };

  b.ddb.configure({ sizing: false });
  const { streamMetrics } = (await import('#execution/stream.js').catch(() => ({ streamMetrics: undefined }))) as {
    streamMetrics?: { queries: number; gets: number; readUnits: number };
  };

  // A request that nothing will ever run: one pending node, never enqueued. Only what the bench appends happens.
  const { id, nodeId, request, node } = pendingRequest(b.accountId);
  await b.repo.create(request, [node]);

  // The streams open at once, past a pro account's burst of 40 requests: a load this section does not measure.
  await setRequestRate(b.direct, b.accountId, count);
  const listeners = await connect(b, `${b.stack.url}/v1/workflow-requests/${id}/listen`, count).finally(() => setRequestRate(b.direct, b.accountId, undefined));
  if (typeof listeners === 'string') return { measured: false, reason: listeners };
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

  const { lags, missing, complete } = deliveries(listeners, created);
  const windowSeconds = (windowEnd - windowStart) / 1000;
  const listenerSeconds = count * windowSeconds;
  const queries = windowCalls.filter((c) => c.op === 'Query');
  const gets = windowCalls.filter((c) => c.op === 'GetItem');
  const awsPerListenerSecond = sum(windowCalls.map((c) => c.awsUnits)) / listenerSeconds;
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
      localUnitsPerListenerPerSecond: sum(windowCalls.map((c) => c.localUnits ?? 0)) / listenerSeconds,
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
    lambdaUsdPerListenerHour: 3600 * (options.memory.streamMb / 1024) * PRICES.lambdaArmGbSecond,
    connectMs: { median: median(listeners.map((l) => l.connectMs)), max: Math.max(...listeners.map((l) => l.connectMs)) },
  };
}

export function renderSseSection(sse: SseOutcome, memory: FunctionMemory, section: number): string[] {
  const { lines, out } = lineWriter();
  out(`### ${section}.3 Live stream (SSE): 100 listeners on one request`);
  out();
  if (!sse.measured) {
    out(`Not measured: ${sse.reason}.`);
    out();
    return lines;
  }
  const S = sse;
  out(
    `| Listeners | Events | Delivery lag median | p95 | max | Frames missing | Table reads per listener per second | of which Query / GetItem | RRU per listener per second | Reads, USD per listener-hour | Streaming Lambda duration, USD per listener-hour |`,
  );
  out('|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|');
  out(
    `| ${S.listeners} | ${S.eventsAppended} | ${ms(S.lagMs.median)} | ${ms(S.lagMs.p95)} | ${ms(S.lagMs.max)} | ${S.framesMissing} of ${S.framesExpected} | ${num(S.reads.perListenerPerSecond)} | ${num(S.reads.queriesPerListenerPerSecond)} / ${num(S.reads.getsPerListenerPerSecond)} | ${num(S.reads.awsUnitsPerListenerPerSecond)} | ${usd4(S.usdPerListenerHour)} | ${usd4(S.lambdaUsdPerListenerHour)} |`,
  );
  out();
  out(
    `**How measured.** A request is created with \`workflowRequestsRepo(table).create(...)\` with one pending node that is never enqueued, so nothing runs it. ${S.listeners} plain \`fetch\` readers open \`GET /v1/workflow-requests/{id}/listen\` with \`Authorization: Bearer <token>\` (connect median ${ms(S.connectMs.median)}, max ${ms(S.connectMs.max)}) and each receives its snapshot; one second later the bench appends ${S.eventsAppended - 1} node_execution events with \`appendEvent\` at ${S.ratePerSecond} per second, then moves the request to completed and appends the terminal workflow_request event, on which every stream ends (${S.listenersComplete} of ${S.listeners} listeners received all ${S.eventsAppended} events). The bench's own writes go straight to DynamoDB Local, so the DynamoDB proxy sees only the listen function. Lag is each frame's arrival at a listener (\`Date.now()\` when the chunk is read) minus its event's \`created_at\`, over all ${S.lagMs.samples} deliveries; with the stream's poll period of 250 ms after activity (\`STREAM_TIMING\` in lib/execution/stream.ts) a median near half of that is the design, not the machine. Reads per listener per second are the Query and GetItem calls the proxy saw from the first append to the terminal one (${S.windowSeconds.toFixed(1)} s; ${S.reads.queries} Queries and ${S.reads.gets} GetItems over ${S.listeners} listeners)${S.meter ? `; the listen function's own meter (\`streamMetrics\`) counted ${S.meter.queries} Queries and ${S.meter.gets} GetItems in the same window` : ''}. Read units are AWS's rules (strongly consistent, 1 RRU per Query page under 4 KB${S.reads.emptyQueryShare > 0 ? `; ${pct(S.reads.emptyQueryShare, 1)} of the Queries read nothing and are billed at the 1 RRU minimum` : ''}). All ${S.listeners} streams share one process and one DynamoDB client here; in AWS each stream is its own invocation of the response-streaming function, which is why its duration is shown: ${memory.streamMb} MB for an hour is ${usd4(S.lambdaUsdPerListenerHour)}, more than the stream's reads.`,
  );
  out();
  return lines;
}

export const sseSummary = (sse: SseOutcome): string =>
  sse.measured
    ? `SSE, ${sse.listeners} listeners on one request: delivery lag median ${ms(sse.lagMs.median)}, p95 ${ms(sse.lagMs.p95)}; ${num(sse.reads.perListenerPerSecond)} table reads per listener per second`
    : `SSE: not measured: ${sse.reason}`;

export const sseConsoleLine = (sse: SseOutcome): string =>
  sse.measured
    ? `SSE ${sse.listeners} listeners: lag median ${ms(sse.lagMs.median)}, p95 ${ms(sse.lagMs.p95)}; ${num(sse.reads.perListenerPerSecond)} reads per listener per second; ${sse.framesMissing} frames missing`
    : `SSE: not measured: ${sse.reason}`;
