import { evaluationsRepo } from '#evaluations/evaluations-repository.js';
import type { EvaluationResults, EvaluationStatus } from '#evaluations/model.js';
import { isTerminal, type Run } from '#runs/model.js';
import { runsRepo } from '#runs/runs-repository.js';
import { idempotent } from './agent-run.js';
import type { DynamoCall } from './dynamo-billing.js';
import type { EngineStack } from './engine-stack.js';
import type { SqsCall } from './sqs-proxy.js';
import { untilQuiet } from './workflow-run.js';

/**
 * A batch of v2 runs on one machine, made in one of two ways and watched
 * until every run has ended and the service is quiet: a `run: true`
 * evaluation (`POST /v2/evaluations`, the service creates the runs), or a
 * client's `POST /v2/runs` one after another. Server timestamps are on the
 * bench's clock (the handlers and pollers run in its process); the items
 * are read with the bench's own uncounted client.
 */

/** One run of the batch: what the run item says, timestamps in epoch ms. */
export interface BatchRun {
  id: string;
  status: Run['status'];
  output: string | null;
  createdAt: number;
  /** When it got the machine (at creation on an idle machine, else when the run before it handed it on). */
  startedAt: number | undefined;
  completedAt: number | undefined;
}

export interface BatchObservation {
  /** Epoch ms just before the first POST was sent. */
  postAt: number;
  /** From the first POST sent to the last one answered: one for an evaluation, every run for the client. */
  postsMs: number;
  /** In slot order (evaluation) or creation order (client). */
  runs: BatchRun[];
  /** The evaluation's head once it left `running`; absent for the client's runs. */
  evaluation?: { id: string; status: EvaluationStatus; createdAt: number; completedAt: number | undefined; results: EvaluationResults | null };
  ddb: DynamoCall[];
  sqs: SqsCall[];
}

const asMs = (iso: string | null | undefined): number | undefined => (iso ? Date.parse(iso) : undefined);

async function readRuns(b: EngineStack, ids: readonly string[]): Promise<BatchRun[]> {
  const runs = runsRepo(b.direct);
  return Promise.all(
    ids.map(async (id) => {
      const run = await runs.get(id);
      if (!run) throw new Error(`run ${id} of the batch is missing`);
      return {
        id,
        status: run.status,
        output: run.output,
        createdAt: Date.parse(run.created_at),
        startedAt: asMs(run.started_at),
        completedAt: asMs(run.completed_at),
      };
    }),
  );
}

/** `POST /v2/evaluations` with `body` (its `run: true` included), watched until it has left `running` and the service is quiet. */
export async function observeEvaluation(b: EngineStack, body: Record<string, unknown>): Promise<BatchObservation> {
  const evaluations = evaluationsRepo(b.direct);
  const d0 = b.ddb.calls.length;
  const s0 = b.sqs.calls.length;
  const postAt = Date.now();
  const t0 = performance.now();
  const created = await b.api('POST', '/v2/evaluations', body, idempotent());
  const postsMs = performance.now() - t0;
  if (created.status !== 201) throw new Error(`POST /v2/evaluations answered ${created.status}: ${JSON.stringify(created.body)}`);
  const id = created.body.id as string;
  await untilQuiet(
    b,
    s0,
    async () => {
      const evaluation = await evaluations.get(b.accountId, id);
      return { done: !!evaluation && evaluation.status !== 'running', state: evaluation?.status ?? 'missing' };
    },
    `evaluation ${id}`,
  );
  const whole = await evaluations.whole(b.accountId, id);
  if (!whole) throw new Error(`evaluation ${id} is missing`);
  const { evaluation } = whole;
  return {
    postAt,
    postsMs,
    runs: await readRuns(
      b,
      whole.attempts.map((a) => a.run_id),
    ),
    evaluation: {
      id,
      status: evaluation.status,
      createdAt: Date.parse(evaluation.created_at),
      completedAt: asMs(evaluation.completed_at),
      results: evaluation.results,
    },
    ddb: b.ddb.calls.slice(d0),
    sqs: b.sqs.calls.slice(s0),
  };
}

/** `POST /v2/runs` for each body, one after another (each POST waits for the answer of the one before, nothing else), then watched until every run has ended and the service is quiet. */
export async function observeClientRuns(b: EngineStack, bodies: ReadonlyArray<Record<string, unknown>>): Promise<BatchObservation> {
  const runs = runsRepo(b.direct);
  const d0 = b.ddb.calls.length;
  const s0 = b.sqs.calls.length;
  const postAt = Date.now();
  const t0 = performance.now();
  const ids: string[] = [];
  for (const body of bodies) {
    const created = await b.api('POST', '/v2/runs', body, idempotent());
    if (created.status !== 201) throw new Error(`POST /v2/runs answered ${created.status}: ${JSON.stringify(created.body)}`);
    ids.push(created.body.id as string);
  }
  const postsMs = performance.now() - t0;
  await untilQuiet(
    b,
    s0,
    async () => {
      const now = await Promise.all(ids.map((id) => runs.get(id)));
      const open = now.filter((run) => !run || !isTerminal(run.status)).length;
      return { done: open === 0, state: `${open} of ${ids.length} runs not ended` };
    },
    `${ids.length} client runs`,
  );
  return { postAt, postsMs, runs: await readRuns(b, ids), ddb: b.ddb.calls.slice(d0), sqs: b.sqs.calls.slice(s0) };
}
