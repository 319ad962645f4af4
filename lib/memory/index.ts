/**
 * What other features may use of context memory: an agent node reads a
 * chat's recent messages and writes its exchange back.
 */
import type { TableRef } from '#platform/table/table.js';
import { type MemoryRepo, memoryRepo } from './memory-repository.js';

export type { MemoryMessage } from './model.js';

export type AgentMemory = Pick<MemoryRepo, 'recent' | 'appendExchange'>;
export const agentMemory = (table?: TableRef): AgentMemory => memoryRepo(table);
