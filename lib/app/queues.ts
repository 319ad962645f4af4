import { EXECUTION_QUEUES } from '#execution/queues.js';
import type { QueueDefinition } from '#platform/queues.js';

/** Every queue of the service, for the CDK stack and the local stack. A feature's new queue is added here. */
export const QUEUES: readonly QueueDefinition[] = [...EXECUTION_QUEUES];
