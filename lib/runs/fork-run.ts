import { ValidationError } from '#platform/errors.js';
import { type CreateRunDeps, createRun, type RunSeed } from './create-run.js';
import { RunNotEndedError, runNotFound } from './errors.js';
import { planFork } from './fork-plan.js';
import type { ForkRunInput } from './fork-schemas.js';
import type { ForksRepo } from './forks-repository.js';
import { isTerminal, type Run } from './model.js';
import type { Runs } from './run-changes.js';
import type { CreateRunInput } from './schemas.js';

export interface ForkRunDeps extends CreateRunDeps {
  runs: CreateRunDeps['runs'] & Pick<Runs, 'getOwned' | 'steps'>;
  forks: Pick<ForksRepo, 'eventsThrough' | 'seed' | 'discard'>;
  /** The money rules of a creation (429 with the quota document, 403 below the minimum balance), once the source is known to be forkable. */
  admit?(accountId: string): Promise<void>;
}

/** 422 `validation_failed` naming `/from_seq`. */
const fromSeqInvalid = (reason: string, code: string): ValidationError => new ValidationError([{ name: '/from_seq', location: 'body', reason, code }]);

/**
 * POST /v2/runs/{id}/fork (decisions.md, "Run streaming, limits and
 * forks"): a new run of the ended run's harness, input and chat, on its
 * machine unless another is named, whose conversation is the source's up to
 * event `from_seq` (./fork-plan.ts says exactly what is reused). What is
 * reused is written under the new run's id before it exists: copies of the
 * reused steps, so its agent loop replays them as a worker that took a run
 * over does (neither the model nor a tool is called for them again), and
 * the copied events, marked, at the start of its log. Its usage starts at
 * zero: only what it does live is metered and billed. Then it is created as
 * POST /v2/runs creates a run (createRun: validated alike, placed on its
 * machine or queued, `if_busy: enqueue` on a busy chat, started through
 * settlement with its day's count and its slot of work in progress).
 * Unknown or another account's run: 404; not ended: 409 `run_not_ended`;
 * `from_seq` past its last event, or at events past their retention: 422
 * naming `/from_seq`.
 */
export async function forkRun(
  deps: ForkRunDeps,
  accountId: string,
  sourceId: string,
  body: ForkRunInput,
  options: { concurrency?: number } = {},
  now?: () => Date,
): Promise<Run> {
  const source = await deps.runs.getOwned(accountId, sourceId);
  if (!source) throw runNotFound();
  if (!isTerminal(source.status)) throw new RunNotEndedError(source.id, source.status);
  if (body.from_seq > source.event_seq) {
    throw fromSeqInvalid(`must be from 1 to ${source.event_seq}, the seq of the run’s last event`, 'out_of_range');
  }
  const [events, steps] = await Promise.all([deps.forks.eventsThrough(source.id, body.from_seq), deps.runs.steps(source.id)]);
  if (events[0]?.seq !== 1 || events.at(-1)?.seq !== body.from_seq) {
    throw fromSeqInvalid('names events of the run that are past their 30-day retention', 'expired');
  }
  await deps.admit?.(accountId);
  const plan = planFork(source.id, events, steps, body.from_seq);
  let written: string | undefined;
  const seed: RunSeed = {
    set: {
      forked_from: { run_id: source.id, seq: body.from_seq },
      turns: plan.turns.length,
      event_seq: plan.events.length,
      // The history its source was sent: the chat's runs created before the source (before its own source, for a fork of a fork).
      ...(source.chat_id ? { chat_history_before: source.chat_history_before ?? source.created_at } : {}),
    },
    async write(runId) {
      written = runId;
      await deps.forks.seed(runId, plan.events, [...plan.turns, ...plan.results]);
    },
  };
  const metadata = body.metadata ?? source.metadata;
  const create: CreateRunInput = {
    harness_id: source.harness_id,
    input: source.input as CreateRunInput['input'],
    machine_id: body.machine_id ?? source.machine_id,
    ...(source.chat_id === null ? {} : { chat_id: source.chat_id }),
    ...(metadata === null ? {} : { metadata }),
    ...(source.limits === undefined ? {} : { limits: source.limits }),
    if_busy: 'enqueue',
  };
  try {
    return await createRun(deps, accountId, create, now, { ...options, seed });
  } catch (error) {
    // Refused (a full slot, a machine that is not the account's…): what was written for it goes (unless the run exists after all).
    if (written !== undefined) await deps.forks.discard(written).catch(() => undefined);
    throw error;
  }
}
