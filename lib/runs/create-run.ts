import type { Harness } from '#harnesses/index.js';
import { runnability } from '#harnesses/index.js';
import { type Machine, machineOccupancy } from '#machines/index.js';
import { UnavailableError, ValidationError } from '#platform/errors.js';
import { newRunId } from '#platform/ids.js';
import { METRIC } from '#platform/observability/metric-names.js';
import { countMetric } from '#platform/observability/metrics.js';
import type { TransactItem } from '#platform/table/transactions.js';
import { type Chat, chatRunJoin } from '#workflows/index.js';
import { cancelRun, type EndDeps } from './end-run.js';
import { ChatBusyError, fieldInvalid, HarnessNotRunnableError } from './errors.js';
import { effectiveLimits } from './limits.js';
import { isTerminal, type Run, type RunEventData } from './model.js';
import type { Runs } from './run-changes.js';
import type { CreateRunInput } from './schemas.js';

export interface CreateRunDeps extends EndDeps {
  runs: EndDeps['runs'] & Pick<Runs, 'start' | 'queueEntryPut'>;
  harnesses: { get(accountId: string, harnessId: string): Promise<Harness | undefined> };
  machines: { get(accountId: string, machineId: string): Promise<Machine | undefined> };
  chats: { get(accountId: string, chatId: string): Promise<Chat | undefined> };
}

/**
 * What a fork (./fork-run.ts) starts its run with: its own fields (its
 * origin, the turns it reuses, `event_seq` after the events it copied) and
 * the writing of what it reuses under the new run's id (those events and the
 * steps), done once the body is valid and before the run exists.
 */
export interface RunSeed {
  set: Pick<Run, 'forked_from' | 'turns' | 'event_seq'> & Partial<Pick<Run, 'chat_history_before'>>;
  write(runId: string): Promise<void>;
}

/** Creations in a row that lose a race (a machine or chat changed between read and write) before 503. */
const ATTEMPTS = 8;

/** The machine the run goes on: named, or the chat's; 422 naming `/machine_id` otherwise. */
function machineIdOf(body: CreateRunInput, chat: Chat | undefined): string {
  if (chat?.machine_id && body.machine_id && body.machine_id !== chat.machine_id) {
    throw new ValidationError([
      { name: '/machine_id', location: 'body', reason: `differs from the machine the chat is bound to (${chat.machine_id})`, code: 'chat_machine_mismatch' },
    ]);
  }
  const machineId = body.machine_id ?? chat?.machine_id ?? undefined;
  if (!machineId) {
    throw new ValidationError([
      { name: '/machine_id', location: 'body', reason: 'is required unless chat_id names a chat already bound to a machine', code: 'required' },
    ]);
  }
  return machineId;
}

/** A run found under an id its creator chose: it must be that account's (ids are derived from the creator's own resources). */
function sameAccount(run: Run, accountId: string): Run {
  if (run.account_id !== accountId) throw new Error(`Run ${run.id} exists under another account.`);
  return run;
}

/**
 * POST /v2/runs. The run is written in one transaction with what places
 * it: on an idle machine nobody waits for it takes the machine and starts
 * (`queued` then `running`), else it joins the machine's queue; on a chat it
 * becomes the chat's newest run (binding the chat to the machine the first
 * time). A run that starts is woken before the transaction, so that no
 * running run is ever without a message (lib/runs/machine-queue.ts).
 * `options.id` makes the creation idempotent: a creator that derives the id
 * from its own state (an evaluation's attempt) and asks again, after a crash
 * or beside a concurrent copy of itself, gets the one run.
 */
export async function createRun(
  deps: CreateRunDeps,
  accountId: string,
  body: CreateRunInput,
  now: () => Date = () => new Date(),
  options: { id?: string; concurrency?: number; seed?: RunSeed } = {},
): Promise<Run> {
  // A run created under a given id (one derived by its creator) exists once: asked again, it is what was made.
  const existing = options.id === undefined ? undefined : await deps.runs.get(options.id);
  if (existing) return sameAccount(existing, accountId);
  const harness = await deps.harnesses.get(accountId, body.harness_id);
  if (!harness) throw fieldInvalid('harness_id', 'is not a harness of this account');
  let chat = body.chat_id === undefined ? undefined : await deps.chats.get(accountId, body.chat_id);
  if (body.chat_id !== undefined && !chat) throw fieldInvalid('chat_id', 'is not a chat of this account');
  const machineId = machineIdOf(body, chat);
  let machine = await deps.machines.get(accountId, machineId);
  if (!machine) throw fieldInvalid('machine_id', 'is not a machine of this account');
  const reason = runnability({ model: harness.model, instructions: harness.config.instructions, instructions_empty: harness.instructions_empty });
  if (reason) throw new HarnessNotRunnableError(reason);

  const occupancy = machineOccupancy(deps.tableName);
  const id = options.id ?? newRunId();
  // The harness's limits are defaults: the run keeps what it runs under, and its copy of the harness keeps none.
  const { limits: harnessLimits, ...config } = harness.config;
  const limits = effectiveLimits(harnessLimits, body.limits);
  // Before the run exists (and is woken), so that its worker finds them: nobody reads them until then.
  await options.seed?.write(id);
  let interrupting: Run | undefined;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (attempt > 0) {
      chat = chat && (await deps.chats.get(accountId, chat.id));
      machine = await deps.machines.get(accountId, machineId);
      if (!machine) throw fieldInvalid('machine_id', 'is not a machine of this account');
    }
    const previous = chat?.last_run_id ? await deps.runs.get(chat.last_run_id) : undefined;
    const busy = previous && !isTerminal(previous.status) ? previous : undefined;
    if (busy && body.if_busy === 'reject') throw new ChatBusyError(busy.id);
    // An interrupting run queues first (at the front), then cancels the active one, whose end hands the machine to it.
    interrupting = busy && body.if_busy === 'interrupt' ? busy : undefined;
    const at = now().toISOString();
    const idle = !interrupting && machine.current_run_id === null && machine.queued_runs <= 0;
    const run: Run = {
      id,
      account_id: accountId,
      status: idle ? 'running' : 'queued',
      harness_id: harness.id,
      machine_id: machine.id,
      machine_size: machine.size,
      chat_id: chat?.id ?? null,
      input: body.input,
      metadata: body.metadata ?? null,
      output: null,
      failure: null,
      usage: { input_tokens: 0, output_tokens: 0, cost_micro_usd: 0 },
      harness: { ...config, model: harness.model },
      queue_sk: null,
      event_seq: 0,
      turns: 0,
      wait: null,
      lease_owner: null,
      lease_until: 0,
      running_since: idle ? at : null,
      machine_ms: 0,
      created_at: at,
      started_at: idle ? at : null,
      completed_at: null,
      ...options.seed?.set,
    };
    const events: RunEventData[] = [{ type: 'run.status', data: { status: 'queued' } }];
    const items: TransactItem[] = chat ? [{ Update: chatRunJoin(deps.tableName, chat, machine.id, run.id) }] : [];
    // A run the account starts holds a slot of its work in progress from creation (queued or not) to its end.
    if (options.concurrency !== undefined) run.concurrency_slot = true;
    if (limits) run.limits = limits;
    if (idle) {
      events.push({ type: 'run.status', data: { status: 'running' } });
      items.push({ Update: occupancy.takeIdle(accountId, machine.id, run.id) });
      await deps.wake(run);
    } else {
      const entry = deps.runs.queueEntryPut(run, interrupting ? 0 : 1);
      run.queue_sk = entry.sk;
      items.push(entry.item, { Update: occupancy.join(accountId, machine.id) });
    }
    // Counted in the activity of its creation day exactly when it exists, with its slot: settlement's start (429 at the limit).
    const created = await deps.runs.start(run, events, items, options.concurrency);
    if (created === 'started') {
      countMetric(METRIC.runsStarted);
      if (interrupting) await cancelRun(deps, interrupting);
      return { ...run, event_seq: run.event_seq + events.length };
    }
    const raced = options.id === undefined ? undefined : await deps.runs.get(id);
    if (raced) return sameAccount(raced, accountId);
  }
  throw new UnavailableError('The machine or chat is changing too fast to place the run now; retry.');
}
