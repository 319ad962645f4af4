import { randomUUID } from 'node:crypto';
import { eventsAfter, type LoggedEvent } from '#events/pages.js';
import { runEventLog } from '#runs/events.js';
import { isTerminal, type Run, type RunEventData } from '#runs/model.js';
import { runsRepo } from '#runs/runs-repository.js';
import type { DynamoCall } from './dynamo-billing.js';
import type { EngineStack } from './engine-stack.js';
import type { Api } from './local-stack.js';
import type { SqsCall } from './sqs-proxy.js';
import { untilQuiet } from './workflow-run.js';

/** v2 runs on the bench's stack: a harness and a machine made through the API, and one run watched until it is over. */

/** One run, started with `POST /v2/runs` and watched until it is over, with every call the proxies saw meanwhile. */
export interface AgentRunObservation {
  runId: string;
  status: Run['status'];
  output: string | null;
  failure: Run['failure'];
  /** Epoch ms just before the POST was sent (the handlers run in this process: same clock as their timestamps). */
  postAt: number;
  /** `created_at` of the run's first `run.status: running` event, epoch ms. */
  runningAt: number | undefined;
  /** The run's `completed_at`, epoch ms. */
  completedAt: number | undefined;
  events: LoggedEvent<RunEventData>[];
  ddb: DynamoCall[];
  sqs: SqsCall[];
  postMs: number;
  totalMs: number;
}

/** A fresh Idempotency-Key header: every v2 POST but cancel takes one. */
export const idempotent = () => ({ 'Idempotency-Key': randomUUID() });

/** `POST /v2/harnesses` with a `harness.json` and its instructions file; the harness id. */
export async function createHarness(api: Api, config: Record<string, unknown>): Promise<string> {
  const files = [
    { path: 'harness.json', content: JSON.stringify({ instructions: 'prompt.md', ...config }) },
    { path: 'prompt.md', content: 'You are the benchmark agent. Answer briefly.' },
  ];
  const created = await api('POST', '/v2/harnesses', { name: `bench ${randomUUID().slice(0, 8)}`, files }, idempotent());
  if (created.status !== 201) throw new Error(`POST /v2/harnesses answered ${created.status}: ${JSON.stringify(created.body)}`);
  return created.body.id as string;
}

/** `POST /v1/machines` (small); the machine id. */
export async function createMachine(api: Api): Promise<string> {
  const created = await api('POST', '/v1/machines', { name: `bench ${randomUUID().slice(0, 8)}` });
  if (created.status !== 201) throw new Error(`POST /v1/machines answered ${created.status}: ${JSON.stringify(created.body)}`);
  return created.body.id as string;
}

/**
 * An idle machine of the account, made when it has none: the sections of one
 * process share a pro account, which may hold three machines.
 */
export async function idleMachine(api: Api): Promise<string> {
  const listed = await api('GET', '/v1/machines?limit=100');
  const idle = (listed.body.machines as { id: string; status: string }[] | undefined)?.find((m) => m.status === 'idle');
  return idle?.id ?? createMachine(api);
}

/**
 * Starts one run through `POST /v2/runs` and waits until it has ended and
 * the service has gone quiet (untilQuiet: its machine handed on, its end
 * notified, the pollers' deletes done). The run and its events are read
 * with the bench's own uncounted client.
 */
export async function observeAgentRun(b: EngineStack, body: Record<string, unknown>): Promise<AgentRunObservation> {
  const runs = runsRepo(b.direct);
  const d0 = b.ddb.calls.length;
  const s0 = b.sqs.calls.length;
  const postAt = Date.now();
  const t0 = performance.now();
  const created = await b.api('POST', '/v2/runs', body, idempotent());
  const postMs = performance.now() - t0;
  if (created.status !== 201) throw new Error(`POST /v2/runs answered ${created.status}: ${JSON.stringify(created.body)}`);
  const runId = created.body.id as string;
  await untilQuiet(
    b,
    s0,
    async () => {
      const run = await runs.get(runId);
      return { done: !!run && isTerminal(run.status), state: run?.status ?? 'missing' };
    },
    `run ${runId}`,
  );
  const totalMs = performance.now() - t0;
  const run = await runs.get(runId);
  const { events } = await eventsAfter<RunEventData>(runEventLog(b.direct, runId), 0, 1_000, true);
  const running = events.find((e) => e.data.type === 'run.status' && e.data.data.status === 'running');
  return {
    runId,
    status: run?.status ?? 'failed',
    output: run?.output ?? null,
    failure: run?.failure ?? null,
    postAt,
    runningAt: running ? Date.parse(running.created_at) : undefined,
    completedAt: run?.completed_at ? Date.parse(run.completed_at) : undefined,
    events,
    ddb: b.ddb.calls.slice(d0),
    sqs: b.sqs.calls.slice(s0),
    postMs,
    totalMs,
  };
}
