import type { ChatMessage, ToolCall } from '#models/types.js';
import type { Run, StepItem } from './model.js';

/**
 * The recorded steps of a run's agent loop: a model turn (what the model
 * answered, with its tool calls and tokens) and one result per call. A step
 * is written once, in the same change as its events, so a worker that takes
 * a run over replays what is recorded instead of calling again.
 */

export interface TurnStep {
  turn: number;
  content: string;
  tool_calls: ToolCall[];
  input_tokens: number;
  output_tokens: number;
}

export interface ResultStep {
  turn: number;
  call: number;
  call_id: string;
  name: string;
  text: string;
  is_error: boolean;
  denied?: boolean;
}

/** A tool result's text is kept up to this many characters (an item holds 400 KB, and the model need not read more). */
export const RESULT_TEXT_MAX = 64_000;

export const clipText = (text: string): string => (text.length > RESULT_TEXT_MAX ? `${text.slice(0, RESULT_TEXT_MAX)}\n[truncated]` : text);

export interface Recorded {
  turns: TurnStep[];
  /** Results by `turn#call`. */
  results: Map<string, ResultStep>;
}

export const resultKey = (turn: number, call: number): string => `${turn}#${call}`;

export function recordedOf(items: readonly StepItem[]): Recorded {
  const turns: TurnStep[] = [];
  const results = new Map<string, ResultStep>();
  for (const item of items) {
    if (item.call === undefined) turns.push(item as unknown as TurnStep);
    else results.set(resultKey(item.turn, item.call), item as unknown as ResultStep);
  }
  turns.sort((a, b) => a.turn - b.turn);
  return { turns, results };
}

/** What the user said, as text: a string as it is, anything else as its JSON. */
export const textOf = (input: unknown): string => (typeof input === 'string' ? input : JSON.stringify(input));

/** The conversation the model is sent: the chat's earlier runs, this run's input, then every recorded turn and its results. */
export function transcript(run: Pick<Run, 'input'>, history: ReadonlyArray<{ input: unknown; output: string }>, recorded: Recorded): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (const turn of history) messages.push({ role: 'user', content: textOf(turn.input) }, { role: 'assistant', content: turn.output });
  messages.push({ role: 'user', content: textOf(run.input) });
  for (const turn of recorded.turns) {
    messages.push({ role: 'assistant', content: turn.content, ...(turn.tool_calls.length ? { tool_calls: turn.tool_calls } : {}) });
    turn.tool_calls.forEach((call, index) => {
      const result = recorded.results.get(resultKey(turn.turn, index));
      if (result) messages.push({ role: 'tool', call_id: call.id, name: call.name, content: result.text, is_error: result.is_error });
    });
  }
  return messages;
}
