import type { InteractionsService } from '#interactions/index.js';
import { McpServerError } from '#mcp/errors.js';
import { resolveModel } from '#models/registry.js';
import type { ToolCall } from '#models/types.js';
import { isRefusedForContent } from '#platform/table/table.js';
import { TurnStream, type TurnStreamEnd } from './deltas.js';
import { type EndDeps, endRun } from './end-run.js';
import { keepLease, type Lease, RunStopped, takeLease, watched } from './lease.js';
import { limitFailure } from './limits.js';
import type { Run, RunEventData, RunFailure } from './model.js';
import type { RunChange, Runs } from './run-changes.js';
import type { RunMoney } from './run-money.js';
import { askFor, type OfferedTools, offeredTools, type RunMcp, runTool } from './run-tools.js';
import { type Recorded, type ResultStep, recordedOf, resultKey, type TurnStep, textOf, transcript } from './steps.js';
import { leaveRunning, machineMsAt, usageOf } from './usage.js';

/**
 * The agent loop of a run (decisions.md, Harnesses and machines): model
 * turns with the harness's instructions as system prompt, the chat's earlier
 * runs and every recorded step, then each tool call the model asked for,
 * until the model answers without one (the run's `output`) or `max_turns`
 * turns were taken. Every step is recorded with its events in one change
 * conditioned on the worker's lease (lib/runs/lease.ts), so a worker that
 * takes a run over replays what is recorded and never repeats a recorded
 * model call or tool call.
 */

export interface LoopDeps extends EndDeps {
  runs: Runs;
  interactions: InteractionsService;
  /** A file of the run's harness (its instructions). */
  harnessFile(harnessId: string, path: string): Promise<string | undefined>;
  mcp: RunMcp;
  /** How long a run's interaction can be answered. */
  interactionTimeoutSeconds: number;
  /** The money of a run (lib/runs/run-money.ts): may it take another model turn. */
  money: RunMoney;
  now(): Date;
}

export interface LoopContext {
  /** This worker invocation: the lease owner. */
  owner: string;
  /** Milliseconds left in the invocation. */
  remainingMs(): number;
  /** The message was received before (SQS ApproximateReceiveCount > 1): its earlier receiver never finished it. */
  redelivered: boolean;
}

/** Earlier runs of the chat the model sees. */
export const CHAT_HISTORY_RUNS = 20;
/** With less than this left of the invocation, the loop continues in a new message rather than start a step. */
export const CONTINUE_MARGIN_MS = 120_000;

const STEP_NOT_STORABLE: RunFailure = {
  code: 'internal_error',
  message: 'A step of the run could not be recorded: what the model or a tool answered is nested deeper or larger than can be stored.',
  retryable: false,
};

/** The loop ended its part: the run waits, ended, or another worker has it. */
class Stop extends Error {}

interface Loop {
  deps: LoopDeps;
  run: Run;
  lease: Lease;
  recorded: Recorded;
  history: Array<{ input: unknown; output: string }>;
  system: string;
  tools: OfferedTools;
}

export async function runLoop(deps: LoopDeps, start: Run, ctx: LoopContext): Promise<void> {
  const lease = await takeLease(deps.runs, start.id, ctx.owner, deps.now().getTime());
  if (!lease) return leaseHeld(deps, start, ctx);
  let loop: Loop | undefined;
  try {
    const [steps, history, system, tools] = await Promise.all([
      deps.runs.steps(start.id),
      // A fork is sent its source's history: the chat's runs created before the source (lib/runs/fork-run.ts).
      start.chat_id ? deps.runs.chatTurns(start.chat_id, CHAT_HISTORY_RUNS, start.chat_history_before) : [],
      deps.harnessFile(start.harness_id, start.harness.instructions),
      offeredTools(deps.mcp, start.harness),
    ]);
    loop = { deps, run: { ...start, lease_owner: lease.owner }, lease, recorded: recordedOf(steps), history, system: system ?? '', tools };
    for (;;) {
      if (ctx.remainingMs() < CONTINUE_MARGIN_MS) {
        // Released before the wake: the new message's worker may start at once and must find the lease free, or it
        // leaves the run to this worker, which is about to return. Dying in between is safe: this message comes back.
        await deps.runs.releaseLease(loop.run.id, lease.owner);
        await deps.wake(loop.run);
        return;
      }
      await keepLease(deps.runs, loop.run.id, lease, deps.now().getTime());
      const last = loop.recorded.turns.at(-1);
      const open = last ? last.tool_calls.findIndex((_, i) => !loop!.recorded.results.has(resultKey(last.turn, i))) : -1;
      if (last && open >= 0) await callStep(loop, last, open);
      else await modelStep(loop);
    }
  } catch (error) {
    if (error instanceof Stop || error instanceof RunStopped) return;
    if (error instanceof McpServerError && loop) return void (await fail(loop, { code: 'upstream_unavailable', message: error.detail, retryable: true }));
    // A step DynamoDB refuses for what it holds (tool arguments nested too deep, a tool result too large) is refused on every
    // delivery, each calling the model again: the run ends here instead.
    if (isRefusedForContent(error) && loop) {
      await fail(loop, STEP_NOT_STORABLE).catch((stopped: unknown) => {
        if (!(stopped instanceof Stop)) throw stopped;
      });
      return;
    }
    if (error instanceof McpServerError) {
      await endRun(
        deps,
        start,
        { status: 'failed', failure: { code: 'upstream_unavailable', message: error.detail, retryable: true }, leaseOwner: lease.owner },
        ['running'],
      );
      return;
    }
    throw error;
  }
}

/**
 * Another worker's lease is live. A first delivery is a duplicate: the
 * holder's own message carries the loop on. A redelivery means its earlier
 * receiver died, perhaps holding this very lease (a visibility timeout can
 * be shorter than a lease, as LOCAL_VISIBILITY_TIMEOUT_SECONDS makes it),
 * so the message comes back once the lease has run out rather than leave
 * the run to nobody.
 */
async function leaseHeld(deps: LoopDeps, start: Run, ctx: LoopContext): Promise<void> {
  if (!ctx.redelivered) return;
  const now = await deps.runs.get(start.id);
  if (now?.status !== 'running' || !now.lease_until) return;
  await deps.wake(now, { delaySeconds: Math.max(1, Math.ceil((now.lease_until - deps.now().getTime()) / 1000) + 1) });
}

/**
 * Applies a change of the loop's run. Refused, the run is read again: ended
 * or taken over, the loop stops; still ours (a concurrent transaction
 * collided), the change is tried again on what was read.
 */
async function apply(loop: Loop, change: Omit<RunChange, 'from' | 'leaseOwner'>): Promise<Run> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const changed = await loop.deps.runs.change(loop.run, { ...change, from: ['running'], leaseOwner: loop.lease.owner });
    if (changed) {
      loop.run = changed;
      return changed;
    }
    const now = await loop.deps.runs.get(loop.run.id);
    if (now?.status !== 'running' || now.lease_owner !== loop.lease.owner) throw new Stop();
    loop.run = now;
  }
  throw new Error(`Run ${loop.run.id}: a change kept colliding with other writes.`);
}

/**
 * Ends the loop's run with `end` (endRun). Refused, the run is read again:
 * ended or taken over, nothing more is done; still ours, the end is tried
 * again on what was read. Either way the loop stops.
 */
async function finish(loop: Loop, end: (run: Run) => Promise<Run | undefined>): Promise<never> {
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await end(loop.run)) throw new Stop();
    const now = await loop.deps.runs.get(loop.run.id);
    if (now?.status !== 'running' || now.lease_owner !== loop.lease.owner) throw new Stop();
    loop.run = now;
  }
  throw new Error(`Run ${loop.run.id}: its end kept colliding with other writes.`);
}

const fail = (loop: Loop, failure: RunFailure): Promise<never> =>
  finish(loop, (run) => endRun(loop.deps, run, { status: 'failed', failure, leaseOwner: loop.lease.owner }, ['running']));

async function modelStep(loop: Loop): Promise<void> {
  const { deps, run } = loop;
  const turn = run.turns;
  if (turn >= run.harness.max_turns) {
    await fail(loop, {
      code: 'max_turns_exceeded',
      message: `The model took its ${run.harness.max_turns} turns (max_turns) without a final answer.`,
      retryable: false,
    });
  }
  // The run's limits (lib/runs/limits.ts), before every model turn: what was done stays and is billed, the run ends here.
  const overLimit = limitFailure(run, 'model_turn', deps.now());
  if (overLimit) await fail(loop, overLimit);
  // Checked before every model turn against the usage recorded so far: what was done stays, the run ends here.
  const unfunded = await deps.money.check(run);
  if (unfunded) await fail(loop, { code: unfunded.code, message: unfunded.message, retryable: false });
  const model = resolveModel(run.harness.model);
  if (!model) await fail(loop, { code: 'model_error', message: `No model provider for ${run.harness.model}.`, retryable: false });
  let completion: Awaited<ReturnType<NonNullable<typeof model>['provider']['complete']>>;
  // The answer's text is written as `message.delta` events while it comes (lib/runs/deltas.ts); the user's message goes first.
  const input: RunEventData[] = turn === 0 ? [{ type: 'message', data: { role: 'user', text: textOf(run.input) } }] : [];
  const stream = await TurnStream.open(deps.runs, run, loop.lease.owner, turn, input);
  let streamed: TurnStreamEnd;
  try {
    completion = await watched(deps.runs, run.id, loop.lease, (signal) =>
      model!.provider.complete({
        model: model!.model,
        system: loop.system,
        messages: transcript(run, loop.history, loop.recorded),
        tools: loop.tools.offered,
        signal: stream.signal(signal),
        onText: stream.onText,
      }),
    );
    streamed = await stream.finish(completion.content);
  } catch (error) {
    await stream.abandon();
    // A delta's write found the run ended or taken over (RunStopped), or failed (the message is delivered again).
    if (error instanceof RunStopped) throw error;
    if (stream.failure !== undefined) throw stream.failure;
    return fail(loop, { code: 'model_error', message: `The model call failed: ${(error as Error).message}`, retryable: true });
  }
  const step: TurnStep = {
    turn,
    content: completion.content,
    tool_calls: completion.tool_calls ?? [],
    input_tokens: completion.usage.input_tokens,
    output_tokens: completion.usage.output_tokens,
  };
  const tokens = { input: run.usage.input_tokens + step.input_tokens, output: run.usage.output_tokens + step.output_tokens };
  const now = deps.now();
  const usage = usageOf(run, tokens, machineMsAt(run, now));
  const events: RunEventData[] = [
    ...streamed.events,
    ...(step.content || step.tool_calls.length === 0 ? [{ type: 'message' as const, data: { role: 'assistant' as const, text: step.content } }] : []),
    ...step.tool_calls.map((call): RunEventData => ({ type: 'tool_call', data: { call_id: call.id, name: call.name, arguments: call.arguments } })),
    { type: 'usage', data: usage },
  ];
  const stepPut = deps.runs.stepPut(run.id, { ...step });
  // The turn's change follows its deltas; one that finds a page there (a worker that lost the run wrote still) is refused.
  const afterDeltas = streamed.afterSeq === undefined ? {} : { afterSeq: streamed.afterSeq };
  if (step.tool_calls.length === 0) {
    const items = [stepPut, ...(run.chat_id ? [deps.runs.chatTurnPut(run, step.content)] : [])];
    return finish(loop, (current) =>
      endRun(
        deps,
        { ...current, usage: usageOf(current, tokens, machineMsAt(current, now)) },
        { status: 'completed', output: step.content, leaseOwner: loop.lease.owner },
        ['running'],
        // The run given carries the turn's usage already: the cost recorded is the rise from the stored one.
        { events, items, set: { turns: turn + 1 }, costBefore: current.usage.cost_micro_usd, ...afterDeltas },
        now,
      ),
    );
  }
  await apply(loop, { set: { turns: turn + 1, usage }, events, items: [stepPut], ...afterDeltas });
  loop.recorded.turns.push(step);
}

async function callStep(loop: Loop, turn: TurnStep, index: number): Promise<void> {
  const { deps } = loop;
  const call: ToolCall = turn.tool_calls[index]!;
  // The run's limits, before every tool call (and before asking a person to approve one).
  const overLimit = limitFailure(loop.run, 'tool_call', deps.now());
  if (overLimit) return fail(loop, overLimit);
  const outcome = await runTool(
    {
      tools: loop.tools,
      mcp: deps.mcp,
      ask: (type, prompt) => askFor(deps, loop.run, { turn: turn.turn, call: index, type, prompt }),
      inFlight: (fn) => watched(deps.runs, loop.run.id, loop.lease, fn),
    },
    call,
  );
  if (outcome.kind === 'wait') return waitFor(loop, outcome.interaction);
  if (outcome.kind === 'expired') {
    await deps.interactions.resolve(outcome.interaction.id, 'expired', null);
    return fail(loop, { code: 'timeout', message: 'Nobody answered the run’s interaction in time.', retryable: false });
  }
  if (outcome.kind === 'cancelled') throw new Stop(); // only a cancel of the run cancels its interaction
  const result: ResultStep = { turn: turn.turn, call: index, call_id: call.id, name: call.name, ...outcome.result };
  await apply(loop, {
    // Counted with its result, once: a call a person denied was not made.
    set: result.denied ? {} : { tool_calls: (loop.run.tool_calls ?? 0) + 1 },
    events: [
      {
        type: 'tool_result',
        data: { call_id: call.id, name: call.name, text: result.text, is_error: result.is_error, ...(result.denied ? { denied: true } : {}) },
      },
    ],
    items: [deps.runs.stepPut(loop.run.id, { ...result })],
  });
  loop.recorded.results.set(resultKey(turn.turn, index), result);
}

/** The run waits for a person: its machine time stops, its lease is given up, and a delayed message will look at it when the interaction expires. */
async function waitFor(
  loop: Loop,
  interaction: { id: string; type: 'approval' | 'answer'; expires_at: string | null; turn: number; call: number },
): Promise<never> {
  const now = loop.deps.now();
  const run = await apply(loop, {
    set: {
      status: 'waiting',
      wait: { interaction_id: interaction.id, type: interaction.type, turn: interaction.turn, call: interaction.call },
      lease_owner: null,
      ...leaveRunning(loop.run, now),
    },
    events: [
      { type: 'interaction', data: { interaction_id: interaction.id, type: interaction.type, status: 'pending' } },
      { type: 'run.status', data: { status: 'waiting' } },
    ],
  });
  await loop.deps.wake(run, { delaySeconds: secondsUntil(interaction.expires_at, now) });
  throw new Stop();
}

/** Seconds until `at` (at most SQS's 900: a longer wait is looked at again then). */
export const secondsUntil = (at: string | null, now: Date): number =>
  at === null ? 900 : Math.min(900, Math.max(0, Math.ceil((Date.parse(at) - now.getTime()) / 1000)));
