import type { QueueDefinition } from '#platform/queues.js';
import { FEATURE_QUEUES } from './registry.generated.js';

/** Every queue of the service, for the CDK stack and the local stack: each feature's lib/<feature>/queues.ts (lib/app/registry.generated.ts). */
export const QUEUES: readonly QueueDefinition[] = FEATURE_QUEUES;
