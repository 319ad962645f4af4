/**
 * Reads a Server-Sent Events body as it arrives, handing each message block
 * (the text between blank lines) to `onBlock`; answers what was left after
 * the last blank line when the body ended (empty for a stream that ends on a
 * message boundary).
 */
export async function readSseBlocks(body: ReadableStream<Uint8Array> | null, onBlock: (block: string) => void): Promise<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body ?? []) {
    buffer += decoder.decode(chunk as Uint8Array, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      onBlock(buffer.slice(0, end));
      buffer = buffer.slice(end + 2);
    }
  }
  return buffer;
}
