import type { ChatMessage, ToolCall } from './types.js';

/**
 * One turn of a `local/script` run (decisions.md, Models): ask for a tool
 * call, or answer with text, which ends the run. A reply's `delay_ms` is
 * the wait before each of its words after the first, so that a slow
 * answer can be watched streaming.
 */
export type ScriptStep = { tool: string; arguments: Record<string, unknown> } | { reply: string; delay_ms?: number };

/** What `local/script` answers for one turn, before tokens are counted. */
export interface ScriptTurn {
  content: string;
  tool_calls?: ToolCall[];
  /** The wait before each word of `content` after the first. */
  delay_ms?: number;
}

/** The longest `delay_ms`: a scripted answer stays a development aid, not a way to hold a worker. */
export const MAX_DELAY_MS = 2000;

const isDelay = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 0 && (value as number) <= MAX_DELAY_MS;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function stepOf(value: unknown): ScriptStep | undefined {
  if (!isObject(value)) return undefined;
  const isTool = typeof value.tool === 'string' && value.tool !== '' && isObject(value.arguments);
  const isReply = typeof value.reply === 'string';
  // A step that could be read either way is as invalid as one that is neither:
  // a script author must never have to guess which of the two was played.
  if (isTool === isReply) return undefined;
  // A tool call has no text to pace: a delay on one would be silently ignored, so it is as wrong as a bad one.
  if ('delay_ms' in value && (isTool || !isDelay(value.delay_ms))) return undefined;
  if (isTool) return { tool: value.tool as string, arguments: value.arguments as Record<string, unknown> };
  return { reply: value.reply as string, ...('delay_ms' in value ? { delay_ms: value.delay_ms as number } : {}) };
}

/**
 * The steps of a script, or undefined when `text` is not one: the whole
 * message must be a JSON object whose `steps` is a non-empty array of valid
 * steps. One bad step makes the whole input plain text, so a typo shows up
 * as an echo at the first turn rather than a run that fails halfway.
 */
export function parseScript(text: string): ScriptStep[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(parsed) || !Array.isArray(parsed.steps) || parsed.steps.length === 0) return undefined;
  const steps = parsed.steps.map(stepOf);
  return steps.every((step) => step !== undefined) ? (steps as ScriptStep[]) : undefined;
}

/** The messages after the last user message: the current run's own turns, whatever chat history came before. */
export function currentTurn(messages: ChatMessage[]): { user: string | undefined; since: ChatMessage[] } {
  const index = messages.findLastIndex((m) => m.role === 'user');
  return index < 0 ? { user: undefined, since: messages } : { user: messages[index]!.content, since: messages.slice(index + 1) };
}

const replyOf = (step: { reply: string; delay_ms?: number }): ScriptTurn =>
  step.delay_ms ? { content: step.reply, delay_ms: step.delay_ms } : { content: step.reply };

/**
 * The turn `local/script` plays given the run's turns so far (`since`, the
 * messages after the user message that holds the script). The n-th model
 * call is the n-th step, n counted from the assistant messages already
 * there, so a redelivered worker replaying the same messages plays the same
 * step with the same call id.
 */
export function playScript(steps: ScriptStep[], since: ChatMessage[]): ScriptTurn {
  const n = since.filter((m) => m.role === 'assistant').length;
  const step = steps[n];
  // Ids only need to be unique within the user turn: the model sees no calls from earlier turns' runs.
  if (step && 'tool' in step) return { content: '', tool_calls: [{ id: `call_${n + 1}`, name: step.tool, arguments: step.arguments }] };
  if (step) return replyOf(step);
  const last = steps.at(-1)!;
  // Past the end after a reply, the run was asked to go on after it had
  // answered; saying the same again, at the same pace, keeps the model deterministic.
  if ('reply' in last) return replyOf(last);
  const result = since.findLast((m) => m.role === 'tool');
  return { content: result?.content ?? '' };
}
