/**
 * The arguments of a call, written as JSON text (OpenAI-compatible calls,
 * Bedrock's streamed tool input), as an object. Models can write arguments that are
 * not a JSON object (cut off at the token limit, or plain prose); they are
 * kept as `{_raw: text}` rather than dropped to `{}`: the text stays in the
 * call as recorded, where whoever reads the run can see what went wrong,
 * and a check against the tool's schema refuses it, where `{}` could pass
 * (no required arguments) and run the tool with arguments the model never
 * meant.
 */
export function argumentsOf(text: string): Record<string, unknown> {
  // Compatible servers send "" for a call without arguments, and Bedrock may stream no input at all.
  if (text.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // Falls through to the raw text.
  }
  return { _raw: text };
}
