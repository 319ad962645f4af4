import type { ConverseStreamOutput } from '@aws-sdk/client-bedrock-runtime';
import { untilAborted } from './streaming.js';
import { argumentsOf } from './tool-arguments.js';
import type { Completion, ToolCall } from './types.js';

type ToolUseDraft = { id: string; name: string; input: string };

/**
 * The exception an event carries. The SDK throws these itself while it
 * reads the stream; one handed over as an event (a stub's, or a later SDK's)
 * must fail the call just the same.
 */
const exceptionOf = (event: ConverseStreamOutput): Error | undefined =>
  event.internalServerException ??
  event.modelStreamErrorException ??
  event.validationException ??
  event.throttlingException ??
  event.serviceUnavailableException;

/**
 * The answer of a ConverseStream call, put together from its events: text
 * deltas as they come (each to `onText`), a toolUse block's input as JSON
 * text in pieces, parsed when its block stops, the usage from `metadata`.
 * A stream that ends before `messageStop` was cut off: its answer is not
 * the model's whole answer, so it is an error rather than a completion.
 */
export async function completionOfStream(
  stream: AsyncIterable<ConverseStreamOutput>,
  onText: (delta: string) => void,
  signal?: AbortSignal,
): Promise<Completion> {
  let content = '';
  const drafts = new Map<number, ToolUseDraft>();
  // By content block index, so the calls keep the model's order whatever order their blocks stop in.
  const calls: ToolCall[] = [];
  let usage: Completion['usage'] = { input_tokens: 0, output_tokens: 0 };
  let stopped = false;
  for await (const event of untilAborted(stream, signal)) {
    const exception = exceptionOf(event);
    if (exception) throw exception;
    const index = event.contentBlockStart?.contentBlockIndex ?? event.contentBlockDelta?.contentBlockIndex ?? event.contentBlockStop?.contentBlockIndex ?? 0;
    const toolUse = event.contentBlockStart?.start?.toolUse;
    if (toolUse) drafts.set(index, { id: toolUse.toolUseId ?? '', name: toolUse.name ?? '', input: '' });
    const delta = event.contentBlockDelta?.delta;
    if (delta?.text) {
      content += delta.text;
      onText(delta.text);
    }
    const draft = drafts.get(index);
    if (draft && delta?.toolUse) draft.input += delta.toolUse.input ?? '';
    if (draft && event.contentBlockStop) {
      calls[index] = { id: draft.id, name: draft.name, arguments: argumentsOf(draft.input) };
      drafts.delete(index);
    }
    if (event.metadata?.usage) usage = { input_tokens: event.metadata.usage.inputTokens ?? 0, output_tokens: event.metadata.usage.outputTokens ?? 0 };
    if (event.messageStop) stopped = true;
  }
  if (!stopped) throw new Error('The Bedrock stream ended before the model had finished its answer.');
  const toolCalls = calls.filter(Boolean);
  return { content, ...(toolCalls.length ? { tool_calls: toolCalls } : {}), usage };
}
