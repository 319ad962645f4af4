/**
 * What other features may use of context memory: an agent node reads a
 * chat's recent messages and writes its exchange back.
 */
import type { TableRef } from '#platform/table/table.js';
import { memoryRepo } from './memory-repository.js';

export type { MemoryMessage } from './memory-repository.js';

export const agentMemory = (table?: TableRef) => {
  const repo = memoryRepo(table);
  return { recent: repo.recent.bind(repo), appendExchange: repo.appendExchange.bind(repo) };
};
export type AgentMemory = ReturnType<typeof agentMemory>;
