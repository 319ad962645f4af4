/** One chat turn sent to a model. */
export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string;
}

export interface CompletionRequest {
  /** The part after `<provider>/`. */
  model: string;
  system: string;
  messages: ChatMessage[];
  signal?: AbortSignal;
}

export interface Completion {
  content: string;
  usage: { input_tokens: number; output_tokens: number };
}

export interface ModelProvider {
  complete(request: CompletionRequest): Promise<Completion>;
}
