/** One message of an agent node's context memory (a chat's, or a request's run without a chat). No I/O. */
export interface MemoryMessage {
  id: string;
  role: 'user' | 'assistant';
  content: string;
  context_memory_id: string;
  agent_node_id: string;
  created_at: string;
}

/** A message as `GET /v1/chat-memory/{agentNodeId}` shows it, its fields in this order. */
export const messageView = (message: MemoryMessage): MemoryMessage => ({
  id: message.id,
  role: message.role,
  content: message.content,
  context_memory_id: message.context_memory_id,
  agent_node_id: message.agent_node_id,
  created_at: message.created_at,
});
