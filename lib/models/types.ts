/** A tool the model may call: its name as offered, and its arguments' JSON Schema. */
export interface ToolSpec {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
}

/** A call the model asked for; `id` is unique within the conversation. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** One turn of a conversation sent to a model. */
export type ChatMessage =
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; tool_calls?: ToolCall[] }
  /** The result of one tool call, answering the assistant turn that asked for it. */
  | { role: 'tool'; call_id: string; name: string; content: string; is_error?: boolean };

export interface CompletionRequest {
  /** The part after `<provider>/`. */
  model: string;
  system: string;
  messages: ChatMessage[];
  /** Tools the model may call; none when absent or empty. */
  tools?: ToolSpec[];
  /**
   * Aborts the call. A provider stops at once, streaming or not, and
   * rejects; callers tell an abort from a failure by `signal.aborted`. The
   * error is the signal's `reason` when the provider notices the abort
   * itself (local models, the OpenAI-compatible endpoint over fetch), or
   * the AWS SDK's `AbortError` while a Bedrock request is in flight.
   */
  signal?: AbortSignal;
  /**
   * Receives the assistant's text while it is produced (run events'
   * `message.delta`, decisions.md). Invariant: the pieces come in order,
   * none is empty, and their concatenation equals the returned
   * `Completion.content` exactly; a turn without text (only tool calls)
   * makes no call. Without it, a provider makes the same request as it
   * did before streaming, so nothing changes for callers that do not
   * listen (and Bedrock needs no streaming permission for them).
   */
  onText?: (delta: string) => void;
}

export interface Completion {
  content: string;
  /** The tool calls the model asked for; absent or empty means this is its answer. */
  tool_calls?: ToolCall[];
  usage: { input_tokens: number; output_tokens: number };
}

export interface ModelProvider {
  complete(request: CompletionRequest): Promise<Completion>;
}
