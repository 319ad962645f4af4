import type { EndpointContract } from '#platform/http/contract.js';
import { ChatMemoryGet } from './chat-memory-get.js';

export const MEMORY_ENDPOINTS: readonly EndpointContract[] = [ChatMemoryGet];
