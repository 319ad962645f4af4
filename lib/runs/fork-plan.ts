import type { LoggedEvent } from '#events/pages.js';
import type { ForkedFrom, RunEventData, StepItem } from './model.js';
import { type ResultStep, recordedOf, resultKey, type TurnStep } from './steps.js';

/**
 * What a fork of a run reuses (decisions.md, "Run streaming, limits and
 * forks"; POST /v2/runs/{id}/fork): the source's recorded steps whose events
 * all lie at or before `from_seq`, and the events that tell them, copied to
 * open the fork's own log. Pure: the source's events and steps in, the plan
 * out (./fork-run.ts writes it).
 *
 * A step is what the agent loop records in one change with its events
 * (./steps.ts, ./agent-loop.ts): a model turn writes the user's message (the
 * first turn only), the assistant's message (when it has text or calls no
 * tool) and one `tool_call` per call, then `usage`; a tool result writes its
 * `tool_result`, after the `interaction` events of an approval or a question
 * it waited for. The rule, precisely:
 *
 * - A model turn is reused when its `message` and `tool_call` events are all
 *   at or before `from_seq` (the `usage` event after them does not count),
 *   and it asked for at least one tool: the turn that answered without a
 *   tool call (the final answer) is always played again live, so a fork
 *   always goes on with a model turn or a tool call of its own.
 * - A tool result is reused when its turn is, and its `tool_result` event is
 *   at or before `from_seq`. A call of a reused turn whose result is not is
 *   made again, live: `from_seq` at a `tool_call` forks before its result.
 * - Steps are reused in order: nothing after the first step that is not.
 *
 * So `from_seq` inside a model turn's events (between the user's message and
 * the last `tool_call`) forks before that turn, and the model is called again
 * for it. The copied events are the `message`, `tool_call`, `tool_result` and
 * `interaction` events up to the last event of the last reused step; each
 * carries `data.reused_from: {run_id, seq}`, the source's event it copies.
 * The source's `run.status`, `usage` and `message.delta` events are not
 * copied: the fork has its own statuses and usage, and the messages whole.
 */

export interface ForkPlan {
  /** The model turns reused, from turn 0: the fork's `turns` is their count. */
  turns: TurnStep[];
  /** The tool results reused. */
  results: ResultStep[];
  /** The events the fork's log starts with (seq 1, 2, …), each marked with the source event it copies. */
  events: RunEventData[];
  /** The source's seq of the last event of the last reused step (0: nothing is reused). */
  through: number;
}

/** The events a fork's log copies (the run's conversation and the interactions of its reused calls). */
export const COPIED_EVENT_TYPES: ReadonlySet<string> = new Set(['message', 'tool_call', 'tool_result', 'interaction']);

/** One event the recorded steps imply, in the order the loop writes them. */
interface Slot {
  /** `turn` for a model turn, `turn#call` for a tool result. */
  owner: string;
  matches(event: RunEventData): boolean;
}

const turnOwner = (turn: number) => `${turn}`;

/** The conversation events the recorded steps imply, in order: each step's `message`, `tool_call` and `tool_result` events. */
function slotsOf(turns: readonly TurnStep[], results: ReadonlyMap<string, ResultStep>): Slot[] {
  const slots: Slot[] = [];
  turns.forEach((turn, index) => {
    // Turns are recorded 0, 1, 2…: a gap means steps this plan does not understand, and nothing after it is reused.
    if (turn.turn !== index) return;
    const owner = turnOwner(turn.turn);
    if (turn.turn === 0) slots.push({ owner, matches: (e) => e.type === 'message' && e.data.role === 'user' });
    if (turn.content || turn.tool_calls.length === 0) slots.push({ owner, matches: (e) => e.type === 'message' && e.data.role === 'assistant' });
    for (const call of turn.tool_calls) slots.push({ owner, matches: (e) => e.type === 'tool_call' && e.data.call_id === call.id });
    for (const [index, call] of turn.tool_calls.entries()) {
      const key = resultKey(turn.turn, index);
      if (!results.has(key)) break;
      slots.push({ owner: key, matches: (e) => e.type === 'tool_result' && e.data.call_id === call.id });
    }
  });
  return slots;
}

/**
 * The plan of a fork of run `sourceId` at `fromSeq`, from the source's
 * events (in seq order, at least those up to `fromSeq`) and its recorded
 * steps. Steps the events do not show in the order the loop writes them are
 * not reused (played again live rather than reused wrongly).
 */
export function planFork(sourceId: string, events: readonly LoggedEvent<RunEventData>[], steps: readonly StepItem[], fromSeq: number): ForkPlan {
  const recorded = recordedOf(steps);
  const slots = slotsOf(recorded.turns, recorded.results);
  // The seq of each slot's event, matched in order; the first event that is not the next slot's stops the matching.
  const lastSeqOf = new Map<string, number>();
  let next = 0;
  for (const event of events) {
    if (event.seq > fromSeq || next >= slots.length) break;
    if (event.data.type !== 'message' && event.data.type !== 'tool_call' && event.data.type !== 'tool_result') continue;
    const slot = slots[next]!;
    if (!slot.matches(event.data)) break;
    lastSeqOf.set(slot.owner, event.seq);
    next++;
  }
  // A step is whole when every event it implies was matched at or before `fromSeq`.
  const partial = new Set(slots.slice(next).map((slot) => slot.owner));
  const whole = (owner: string) => lastSeqOf.has(owner) && !partial.has(owner);

  const turns: TurnStep[] = [];
  const results: ResultStep[] = [];
  let through = 0;
  for (const turn of recorded.turns) {
    const owner = turnOwner(turn.turn);
    if (turn.turn !== turns.length || turn.tool_calls.length === 0 || !whole(owner)) break;
    turns.push(turn);
    through = lastSeqOf.get(owner)!;
    let all = true;
    for (let call = 0; call < turn.tool_calls.length; call++) {
      const key = resultKey(turn.turn, call);
      const result = recorded.results.get(key);
      if (!result || !whole(key)) {
        all = false;
        break;
      }
      results.push(result);
      through = lastSeqOf.get(key)!;
    }
    if (!all) break;
  }
  return { turns, results, events: copiedEvents(sourceId, events, through), through };
}

/** The source's conversation events up to `through`, each marked with where it comes from. */
export function copiedEvents(sourceId: string, events: readonly LoggedEvent<RunEventData>[], through: number): RunEventData[] {
  return events
    .filter((event) => event.seq <= through && COPIED_EVENT_TYPES.has(event.data.type))
    .map((event) => {
      const reused_from: ForkedFrom = { run_id: sourceId, seq: event.seq };
      // The event as it was, its data with one field more (documented on each copied type, lib/runs/openapi/run-events-responses.ts).
      return { ...event.data, data: { ...event.data.data, reused_from } } as unknown as RunEventData;
    });
}
