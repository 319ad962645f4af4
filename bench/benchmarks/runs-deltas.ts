import { PROVIDERS } from '#models/registry.js';
import type { CompletionRequest } from '#models/types.js';
import { DELTA_INTERVAL_MS } from '#runs/deltas.js';
import { RUN_EVENTS_TIMING } from '#runs/run-events-stream.js';
import { type AgentRunObservation, createHarness, idempotent, idleMachine, observeAgentRun } from '../support/agent-run.js';
import { purposeOf } from '../support/call-purpose.js';
import type { EngineStack } from '../support/engine-stack.js';
import { counts, lineWriter, log, mark, ms, num, times } from '../support/format.js';
import { openListener } from '../support/sse-client.js';
import { median, type Spread, spread, sum, tally } from '../support/stats.js';

/**
 * Section 5.4: token deltas (`message.delta`, lib/runs/deltas.ts). What
 * they cost in DynamoDB writes per answered model turn, against the same
 * turn without them (`RUN_MESSAGE_DELTAS=off`: no delta, the provider
 * called without `onText`), for a short answer and for a 2-second one; and
 * how long a word takes from the model to an SSE client.
 */

/** The budget: an answered model turn with its deltas costs at most this many times its write units without. */
export const DELTA_WRITE_BUDGET = 1.5;

/** A reply of `words` words, `delayMs` before each after the first (local/script). */
const reply = (words: number, delayMs: number) => {
  const text = Array.from({ length: words }, (_, i) => `word${i + 1}`).join(' ');
  return { text, input: { steps: [{ reply: text, ...(delayMs ? { delay_ms: delayMs } : {}) }] } };
};

/** The cases: the cost script's short answer (3 words at once), and a 2-second one at the coalescing pace (9 words, 250 ms apart). */
const CASES = [
  { label: 'short answer (3 words at once)', words: 3, delayMs: 0 },
  { label: '2-second answer (9 words, 250 ms apart)', words: 9, delayMs: 250 },
] as const;

export interface TurnWrites {
  runs: number;
  statuses: Record<string, number>;
  /** Per run, medians: `message.delta` events, their own writes and WRU, the turn's change (the run's end) WRU, all the run's WRU. */
  deltaEvents: number;
  deltaWrites: number;
  deltaUnits: number;
  turnUnits: number;
  runUnits: number;
}

export interface DeltaCostCase {
  label: string;
  on: TurnWrites;
  off: TurnWrites;
  /** (delta writes + the turn's change) with deltas ÷ the turn's change without. */
  ratio: number;
  /** The whole run's writes with ÷ without. */
  runRatio: number;
}

/** The paces the delay is measured at: a model faster than the coalescing (its words wait for the next write), and one slower (each word written as it comes), neither a multiple of the SSE poll. */
const PACES = [
  { label: 'a word every 50 ms (40 words)', words: 40, delayMs: 50 },
  { label: 'a word every 310 ms (8 words)', words: 8, delayMs: 310 },
] as const;

export interface DeltaLatency {
  label: string;
  runs: number;
  words: number;
  /** Per word: from the provider's `onText` to its delta's `created_at` (written), and to the SSE client's read of it. */
  toWritten: Spread;
  toClient: Spread;
  /** The SSE follow loop's poll: after an event, and at most while idle. */
  pollMinMs: number;
  pollMaxMs: number;
}

export interface RunDeltasResult {
  cost: DeltaCostCase[];
  latency: DeltaLatency[];
}

const isDeltaWrite = (purpose: string) => purpose.startsWith('write message deltas');
const isTurnWrite = (purpose: string) => purpose.startsWith('endRun → completed');

function turnWrites(observed: AgentRunObservation[], text: string): TurnWrites {
  const statuses: Record<string, number> = {};
  const per = observed.map((run) => {
    tally(statuses, run.status === 'completed' && run.output === text ? 'completed' : `${run.status} (${run.failure?.code ?? run.output})`);
    const writes = run.ddb.filter((c) => c.kind === 'write').map((c) => ({ purpose: purposeOf(c), units: c.awsUnits }));
    const deltas = writes.filter((w) => isDeltaWrite(w.purpose));
    return {
      deltaEvents: run.events.filter((e) => e.data.type === 'message.delta').length,
      deltaWrites: deltas.length,
      deltaUnits: sum(deltas.map((w) => w.units)),
      turnUnits: sum(writes.filter((w) => isTurnWrite(w.purpose)).map((w) => w.units)),
      runUnits: sum(writes.map((w) => w.units)),
    };
  });
  const med = (key: keyof (typeof per)[number]) => median(per.map((p) => p[key]));
  return {
    runs: observed.length,
    statuses,
    deltaEvents: med('deltaEvents'),
    deltaWrites: med('deltaWrites'),
    deltaUnits: med('deltaUnits'),
    turnUnits: med('turnUnits'),
    runUnits: med('runUnits'),
  };
}

/** `fn` with RUN_MESSAGE_DELTAS set as given (the handlers run in this process and read it at each turn). */
async function withDeltas<T>(on: boolean, fn: () => Promise<T>): Promise<T> {
  const saved = process.env.RUN_MESSAGE_DELTAS;
  if (on) delete process.env.RUN_MESSAGE_DELTAS;
  else process.env.RUN_MESSAGE_DELTAS = 'off';
  try {
    return await fn();
  } finally {
    if (saved === undefined) delete process.env.RUN_MESSAGE_DELTAS;
    else process.env.RUN_MESSAGE_DELTAS = saved;
  }
}

/**
 * The write cost: per case, `samples` runs with deltas and `samples`
 * without, alternating, after one unrecorded warm-up of each; item sizes
 * read on the side (transactions billed 2 WRU per KB per item).
 */
async function measureCost(b: EngineStack, body: (input: unknown) => Record<string, unknown>, samples: number): Promise<DeltaCostCase[]> {
  const out: DeltaCostCase[] = [];
  b.ddb.configure({ sizing: true });
  try {
    for (const c of CASES) {
      const { text, input } = reply(c.words, c.delayMs);
      await withDeltas(true, () => observeAgentRun(b, body(input)));
      await withDeltas(false, () => observeAgentRun(b, body(input)));
      const on: AgentRunObservation[] = [];
      const off: AgentRunObservation[] = [];
      for (let i = 0; i < samples; i++) {
        on.push(await withDeltas(true, () => observeAgentRun(b, body(input))));
        off.push(await withDeltas(false, () => observeAgentRun(b, body(input))));
      }
      const withThem = turnWrites(on, text);
      const without = turnWrites(off, text);
      out.push({
        label: c.label,
        on: withThem,
        off: without,
        ratio: (withThem.deltaUnits + withThem.turnUnits) / without.turnUnits,
        runRatio: withThem.runUnits / without.runUnits,
      });
    }
  } finally {
    b.ddb.configure({ sizing: false });
  }
  return out;
}

/**
 * The delay at one pace: `samples` runs, each followed from its creation by
 * one SSE client; the local provider is wrapped to stamp each piece it
 * hands to `onText` (handlers and bench share this process and its clock).
 * Each word is matched to the delta that carries its last character.
 */
async function measureLatency(
  b: EngineStack,
  body: (input: unknown) => Record<string, unknown>,
  samples: number,
  pace: (typeof PACES)[number],
): Promise<DeltaLatency> {
  const { input } = reply(pace.words, pace.delayMs);
  const local = PROVIDERS.local!;
  let stamps: Array<{ end: number; at: number }> = [];
  PROVIDERS.local = {
    complete: (request: CompletionRequest) => {
      const onText = request.onText;
      if (!onText) return local.complete(request);
      let end = 0;
      return local.complete({
        ...request,
        onText: (piece) => {
          end += piece.length;
          stamps.push({ end, at: Date.now() });
          onText(piece);
        },
      });
    },
  };
  const toWritten: number[] = [];
  const toClient: number[] = [];
  try {
    for (let i = 0; i <= samples; i++) {
      stamps = [];
      const created = await b.api('POST', '/v2/runs', body(input), idempotent());
      if (created.status !== 201) throw new Error(`POST /v2/runs answered ${created.status}: ${JSON.stringify(created.body)}`);
      const listener = await openListener(`${b.stack.url}/v2/runs/${created.body.id}/events`, b.token);
      const deadline = Date.now() + 30_000;
      while (!listener.closed && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      listener.abort.abort();
      if (i === 0) continue; // the warm-up
      const deltas: Array<{ end: number; writtenAt: number; readAt: number }> = [];
      let end = 0;
      for (const frame of listener.frames) {
        if (frame.json?.type !== 'message.delta') continue;
        end = frame.json.data.restart ? frame.json.data.text.length : end + frame.json.data.text.length;
        deltas.push({ end, writtenAt: Date.parse(frame.json.created_at), readAt: frame.at });
      }
      for (const stamp of stamps) {
        const delta = deltas.find((d) => d.end >= stamp.end);
        if (!delta) continue;
        toWritten.push(delta.writtenAt - stamp.at);
        toClient.push(delta.readAt - stamp.at);
      }
    }
  } finally {
    PROVIDERS.local = local;
  }
  return {
    label: pace.label,
    runs: samples,
    words: toClient.length,
    toWritten: spread(toWritten),
    toClient: spread(toClient),
    pollMinMs: RUN_EVENTS_TIMING.pollMinMs,
    pollMaxMs: RUN_EVENTS_TIMING.pollMaxMs,
  };
}

export async function measureRunDeltas(b: EngineStack, runs: number): Promise<RunDeltasResult> {
  // The events page's requests (5.3) come just before: the account's request rate (20 a second, bursts of 40) refills first.
  await new Promise((resolve) => setTimeout(resolve, 2_500));
  const [harnessId, machineId] = await Promise.all([createHarness(b.api, { model: 'local/script' }), idleMachine(b.api)]);
  const body = (input: unknown) => ({ harness_id: harnessId, machine_id: machineId, input });
  const samples = Math.max(3, Math.min(runs, 5));
  log(`runs: token deltas, ${samples} runs with and ${samples} without per case, then ${samples} followed over SSE at each of ${PACES.length} paces`);
  const cost = await measureCost(b, body, samples);
  const latency: DeltaLatency[] = [];
  for (const pace of PACES) latency.push(await measureLatency(b, body, samples, pace));
  return { cost, latency };
}

const passes = (c: DeltaCostCase) => c.ratio <= DELTA_WRITE_BUDGET;

export function renderRunDeltasSection(r: RunDeltasResult, section: number): string[] {
  const { lines, out } = lineWriter();
  const long = r.cost.at(-1)!;
  out(`### ${section}.4 Token deltas: writes per answered model turn, and a word's way to an SSE client`);
  out();
  out(
    `Budget: an answered model turn with its \`message.delta\` events costs at most ${DELTA_WRITE_BUDGET}× its DynamoDB write units without them. ${r.cost.map((c) => `${c.label}: **${times(c.ratio)}** (${mark(passes(c))})`).join('; ')}.`,
  );
  out();
  out(
    '| Case | Deltas per turn (events / own writes) | WRU of the delta writes | WRU of the turn’s change, with / without | **Turn with ÷ without** | Whole run with ÷ without | Budget |',
  );
  out('|---|---:|---:|---:|---:|---:|---|');
  for (const c of r.cost) {
    out(
      `| ${c.label} | ${num(c.on.deltaEvents, 0)} / ${num(c.on.deltaWrites, 0)} | ${num(c.on.deltaUnits, 1)} | ${num(c.on.turnUnits, 1)} / ${num(c.off.turnUnits, 1)} | **${times(c.ratio)}** | ${times(c.runRatio)} | ${mark(passes(c))} |`,
    );
  }
  out();
  const perWrite = long.on.deltaWrites > 0 ? long.on.deltaUnits / long.on.deltaWrites : 0;
  out(
    `**How measured.** On the section's stack, a \`local/script\` harness and one small machine; each run's input is one \`reply\` step. Per case, ${long.on.runs} runs with deltas and ${long.off.runs} with \`RUN_MESSAGE_DELTAS=off\` (no delta; the provider called without \`onText\`, as before streaming), alternating one of each, after one unrecorded warm-up of each (with: ${r.cost.map((c) => counts(c.on.statuses)).join(', ')}; without: ${r.cost.map((c) => counts(c.off.statuses)).join(', ')}). Writes are counted and billed as in 5.2 (medians per run): the delta writes are the PutItems \`write message deltas\` (one page of the run's event log and nothing else: lib/runs/deltas.ts puts it right after the log's end as the worker knows it, on condition that no page starts there, and does not write the run item), the turn's change is \`endRun → completed\` (the answer's step, events and the run's end). What is left of the text when the answer is complete rides in the turn's change, so the short answer writes its one delta there and costs ${times(r.cost[0]!.ratio)}. The 2-second answer writes a page every ${DELTA_INTERVAL_MS} ms while its words come: ${num(long.on.deltaWrites, 0)} writes of ${num(perWrite, 1)} WRU each (a PutItem bills 1 WRU per KB, and a page of a few words is well under 1 KB, deflated), ${times(long.ratio)} the turn without deltas${passes(long) ? ', within the budget' : ': **over the budget**'}. The run's \`event_seq\` stays at the last change's event while its deltas follow it; every other change of a running run reads the log's end from its newest page (one Query, a read unit, not counted here; the turn's own change knows it from its deltas) and puts its events after it, so a cancel lands after the deltas and the next delta's put, finding the cancel's page, stops the answer. The cost grows with the answer's length, about ${num(4 * perWrite, 0)} WRU a second of answer, whatever the model.`,
  );
  out();
  const poll = r.latency[0]!;
  out(
    '| The model writes | From a word given to `onText` to its delta written (`created_at`): median | p95 | to its delta read by an SSE client: **median** | **p95** | max |',
  );
  out('|---|---:|---:|---:|---:|---:|');
  for (const l of r.latency)
    out(
      `| ${l.label} | ${ms(l.toWritten.median)} | ${ms(l.toWritten.p95)} | **${ms(l.toClient.median)}** | **${ms(l.toClient.p95)}** | ${ms(l.toClient.max)} |`,
    );
  out();
  out(
    `**How measured.** Per pace, ${poll.runs} runs after one unrecorded warm-up, each followed by one SSE client (\`GET /v2/runs/{id}/events\`, \`Accept: text/event-stream\`, bench/support/sse-client.ts) opened right after its \`POST /v2/runs\`; the local provider is wrapped in the bench's process to stamp each word it hands to \`onText\`, and each word (${r.latency.map((l) => l.words).join(' and ')}) is matched to the delta that carries its last character. A fast model's word waits for its write (the words are gathered, at most ${DELTA_INTERVAL_MS} ms), a slow model's is written as it comes; then each waits for the stream's next read of the log: the follow loop reads ${poll.pollMinMs} ms after delivering an event and doubles the wait after each empty read, up to ${poll.pollMaxMs} ms (lib/events/log.ts, FOLLOW_TIMING, as lib/runs/run-events-stream.ts uses it). So while an answer flows a word reaches a client within about ${DELTA_INTERVAL_MS} + ${poll.pollMinMs} ms from a fast model, and within ${2 * poll.pollMinMs} ms from one slower than the poll (a read that found nothing doubles the next wait); for a slow model the poll, not the write, is the delay.`,
  );
  out();
  return lines;
}

export const runDeltasSummary = (r: RunDeltasResult): string =>
  `Token deltas: writes per answered model turn with ÷ without ${r.cost.map((c) => `${c.label} ${times(c.ratio)}`).join(', ')} (budget ${DELTA_WRITE_BUDGET}×); a word to its delta on an SSE client (median / p95) ${r.latency.map((l) => `${l.label} ${ms(l.toClient.median)} / ${ms(l.toClient.p95)}`).join(', ')} (poll ${r.latency[0]!.pollMinMs}-${r.latency[0]!.pollMaxMs} ms)`;

export const runDeltasConsoleLines = (r: RunDeltasResult): string[] => [
  `Token deltas, write units per answered model turn with ÷ without (budget ${DELTA_WRITE_BUDGET}×):`,
  ...r.cost.map(
    (c) =>
      `  ${c.label.padEnd(42)} ${num(c.on.deltaEvents, 0)} deltas in ${num(c.on.deltaWrites, 0)} writes of their own: ${num(c.on.deltaUnits + c.on.turnUnits, 1)} WRU against ${num(c.off.turnUnits, 1)} = ${times(c.ratio)} ${passes(c) ? 'pass' : 'FAIL'} (whole run ${times(c.runRatio)})`,
  ),
  ...r.latency.map(
    (l) =>
      `  ${l.label.padEnd(30)} word → delta written median ${ms(l.toWritten.median)}, p95 ${ms(l.toWritten.p95)}; → SSE client median ${ms(l.toClient.median)}, p95 ${ms(l.toClient.p95)} (${l.words} words; poll ${l.pollMinMs}-${l.pollMaxMs} ms)`,
  ),
];

export const runDeltasBudget = (r: RunDeltasResult): string => {
  const over = r.cost.filter((c) => !passes(c));
  return `  token deltas  ${over.length ? `FAIL (${over.map((c) => `${c.label} ${times(c.ratio)}`).join(', ')} over ${DELTA_WRITE_BUDGET}×)` : `pass (${r.cost.length} of ${r.cost.length})`}`;
};
