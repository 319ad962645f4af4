import type { EvaluationsDeps } from '#evaluations/evaluations-deps.js';
import type { Attempt, AttemptOutcome, Evaluation, EvaluationCase, EvaluationEnd, EvaluationWhole, RecordResult, RunAttemptRef } from '#evaluations/model.js';
import type { AccountEvent } from '#events/account-events.js';
import type { Harness } from '#harnesses/index.js';
import type { Machine } from '#machines/index.js';
import { ValidationError } from '#platform/errors.js';
import type { RunsService } from '#runs/index.js';
import { isTerminal, type Run } from '#runs/model.js';

/**
 * In-memory stand-ins for the evaluations use cases' dependencies, with the
 * conditions of the table's transactions (lib/evaluations/evaluations-
 * repository.ts): a slot is put once, a run fills one slot per evaluation,
 * recording needs the evaluation running, an outcome is recorded once, and
 * an evaluation leaves `running` once.
 */

const copy = <T>(value: T): T => structuredClone(value);
const slotKey = (evaluationId: string, position: number, index: number) => `${evaluationId}/${position}/${index}`;

export const runOf = (overrides: Partial<Run> = {}): Run => ({
  id: 'run_000000000AAAAAAAAAAAAAAAA',
  account_id: 'acc',
  status: 'completed',
  harness_id: 'h_000000000AAAAAAAAAAAAAAAA',
  machine_id: 'mch_000000000AAAAAAAAAAAAAAAA',
  machine_size: 'small',
  chat_id: null,
  input: 'in',
  metadata: null,
  output: 'hello there world',
  failure: null,
  usage: { input_tokens: 1, output_tokens: 3, cost_micro_usd: 1 },
  harness: { model: 'local/echo', instructions: 'prompt.md', max_turns: 10, tools: [], mcp_servers: [] },
  queue_sk: null,
  event_seq: 3,
  turns: 1,
  wait: null,
  lease_owner: null,
  lease_until: 0,
  running_since: null,
  machine_ms: 0,
  created_at: '2026-03-01T00:00:00.000Z',
  started_at: '2026-03-01T00:00:00.000Z',
  completed_at: '2026-03-01T00:00:01.000Z',
  ...overrides,
});

type EvaluationsStore = EvaluationsDeps['evaluations'];

export class FakeEvaluations implements EvaluationsStore {
  heads = new Map<string, Evaluation>();
  cases = new Map<string, EvaluationCase[]>();
  slots = new Map<string, Attempt>();
  lookups = new Map<string, RunAttemptRef[]>();
  events: AccountEvent[] = [];
  /** Called inside `finish` before its condition is checked: a test changes the evaluation there, as a concurrent writer would. */
  beforeFinish?: (evaluation: Evaluation) => void;

  async create(evaluation: Evaluation, cases: readonly EvaluationCase[]): Promise<void> {
    if (this.heads.has(evaluation.id)) throw new Error('exists');
    this.heads.set(evaluation.id, copy(evaluation));
    this.cases.set(evaluation.id, copy([...cases]));
  }

  async get(accountId: string, id: string): Promise<Evaluation | undefined> {
    const head = this.heads.get(id);
    return head?.account_id === accountId ? copy(head) : undefined;
  }

  async whole(accountId: string, id: string): Promise<EvaluationWhole | undefined> {
    const evaluation = await this.get(accountId, id);
    if (!evaluation) return undefined;
    const attempts = [...this.slots.entries()]
      .filter(([key]) => key.startsWith(`${id}/`))
      .map(([, attempt]) => copy(attempt))
      .sort((a, b) => a.position - b.position || a.attempt_index - b.attempt_index);
    return { evaluation, cases: copy(this.cases.get(id) ?? []), attempts };
  }

  async caseAt(id: string, position: number): Promise<EvaluationCase | undefined> {
    return copy(this.cases.get(id)?.[position]);
  }

  async attempt(id: string, position: number, index: number): Promise<Attempt | undefined> {
    return copy(this.slots.get(slotKey(id, position, index)));
  }

  async record(evaluation: Pick<Evaluation, 'id' | 'account_id'>, filled: Attempt): Promise<RecordResult> {
    const head = this.heads.get(evaluation.id)!;
    const key = slotKey(evaluation.id, filled.position, filled.attempt_index);
    const elsewhere = (this.lookups.get(filled.run_id) ?? []).some((ref) => ref.evaluation_id === evaluation.id);
    if (head.status !== 'running') return { kind: 'not_running' };
    const taken = this.slots.get(key);
    if (taken) return { kind: 'taken', attempt: copy(taken) };
    if (elsewhere) return { kind: 'run_elsewhere' };
    this.slots.set(key, copy(filled));
    this.lookups.set(filled.run_id, [
      ...(this.lookups.get(filled.run_id) ?? []),
      { evaluation_id: evaluation.id, account_id: evaluation.account_id, position: filled.position, attempt_index: filled.attempt_index },
    ]);
    head.recorded_attempts++;
    if (filled.ended_at) head.ended_attempts++;
    return { kind: 'recorded' };
  }

  async recordOutcome(id: string, position: number, index: number, runId: string, outcome: AttemptOutcome, at: string): Promise<boolean> {
    const slot = this.slots.get(slotKey(id, position, index));
    if (!slot || slot.run_id !== runId || slot.ended_at) return false;
    Object.assign(slot, outcome, { ended_at: at });
    this.heads.get(id)!.ended_attempts++;
    return true;
  }

  async runAttempts(runId: string): Promise<RunAttemptRef[]> {
    return copy(this.lookups.get(runId) ?? []);
  }

  async finish(evaluation: Pick<Evaluation, 'id' | 'account_id'>, end: EvaluationEnd, event?: AccountEvent): Promise<boolean> {
    const head = this.heads.get(evaluation.id)!;
    this.beforeFinish?.(head);
    if (head.status !== 'running') return false;
    Object.assign(
      head,
      { status: end.status, completed_at: end.completed_at },
      end.results ? { results: end.results } : {},
      end.failure ? { failure: end.failure } : {},
    );
    if (event) this.events.push(copy(event));
    return true;
  }
}

/** Runs as the runs service keeps them: created once per id, cancelled unless ended. */
export class FakeRuns implements RunsService {
  runs = new Map<string, Run>();
  /** Ids of the runs created, in order (a creation asked again for an existing id is not in it again). */
  created: string[] = [];
  cancelled: string[] = [];
  /** Called before each creation: a test throws there (a worker dying, a machine gone) or changes the world. */
  beforeCreate?: (id: string, count: number) => void;

  add(run: Run): Run {
    this.runs.set(run.id, copy(run));
    return run;
  }

  end(id: string, status: 'completed' | 'failed' | 'cancelled', output: string | null = null): Run {
    const run = this.runs.get(id)!;
    Object.assign(run, { status, output, completed_at: '2026-03-01T00:01:00.000Z' });
    return copy(run);
  }

  async getOwned(accountId: string, runId: string): Promise<Run | undefined> {
    const run = this.runs.get(runId);
    return run?.account_id === accountId ? copy(run) : undefined;
  }

  async create(accountId: string, body: Parameters<RunsService['create']>[1], id: string): Promise<Run> {
    const existing = this.runs.get(id);
    if (existing) return copy(existing);
    this.beforeCreate?.(id, this.created.length);
    const run = runOf({
      id,
      account_id: accountId,
      status: 'queued',
      harness_id: body.harness_id,
      machine_id: body.machine_id,
      input: body.input,
      metadata: body.metadata,
      output: null,
    });
    this.runs.set(id, run);
    this.created.push(id);
    return copy(run);
  }

  async cancel(run: Run): Promise<Run> {
    const current = this.runs.get(run.id)!;
    if (isTerminal(current.status)) return copy(current);
    this.cancelled.push(run.id);
    return this.end(run.id, 'cancelled');
  }
}

export const harnessOf = (overrides: Partial<Harness> = {}): Harness => ({
  id: 'h_000000000AAAAAAAAAAAAAAAA',
  account_id: 'acc',
  name: 'h',
  model: 'local/echo',
  config: { model: 'local/echo', instructions: 'prompt.md', max_turns: 10, tools: [], mcp_servers: [] } as unknown as Harness['config'],
  files: [],
  total_bytes: 0,
  instructions_empty: false,
  created_at: '2026-03-01T00:00:00.000Z',
  ...overrides,
});

export const machineOf = (overrides: Partial<Machine> = {}): Machine => ({
  id: 'mch_000000000AAAAAAAAAAAAAAAA',
  account_id: 'acc',
  name: 'm',
  size: 'small',
  current_run_id: null,
  queued_runs: 0,
  created_at: '2026-03-01T00:00:00.000Z',
  ...overrides,
});

/** A world of fakes for one account `acc`, with one harness and one machine. */
export function fakeWorld() {
  const evaluations = new FakeEvaluations();
  const runs = new FakeRuns();
  const tasks: Array<{ task: { evaluation_id: string; account_id: string; absent?: number }; delaySeconds?: number }> = [];
  const harnesses = new Map([[harnessOf().id, harnessOf()]]);
  const machines = new Map([[machineOf().id, machineOf()]]);
  let clock = Date.parse('2026-03-01T00:00:00.000Z');
  const deps: EvaluationsDeps = {
    evaluations,
    runs,
    harnesses: { get: async (accountId, id) => (harnesses.get(id)?.account_id === accountId ? harnesses.get(id) : undefined) },
    machines: { get: async (accountId, id) => (machines.get(id)?.account_id === accountId ? machines.get(id) : undefined) },
    sendTask: async (task, options) => {
      tasks.push({ task, delaySeconds: options?.delaySeconds });
    },
    announce: async () => undefined,
    now: () => {
      clock += 1000;
      return new Date(clock);
    },
  };
  return { deps, evaluations, runs, tasks, harnesses, machines };
}

/** What the runs service throws for a machine that is not the account's any more. */
export const machineGone = () =>
  new ValidationError([{ name: '/machine_id', location: 'body', reason: 'is not a machine of this account', code: 'not_found' }]);
