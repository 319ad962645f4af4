import * as z from 'zod/v4-mini';
import type { MessageOf, QueueMessage } from '#platform/queue-worker.js';

/**
 * The message of the node queues (lib/execution/queues.ts), as their
 * workers and the dead-letter worker validate it. Kept apart from the
 * senders (node-queue.ts imports only its type), so that a handler that
 * sends tasks loads no zod at init.
 */

/** A node task: run this node of this request. */
export const NodeTaskSchema = z.looseObject({
  request_id: z.string(),
  node_id: z.string(),
  /** Routes the task: `agent` nodes go to the agent queue, everything else to node-tasks. */
  node_type: z.optional(z.string()),
  /** Sent by the parent that found the node ready: it may be claimed straight from `blocked` (propagate.ts). */
  ready: z.optional(z.literal(true)),
  /** Where the request's event log continued when the task was sent, so its first flush needs no read (emit.ts). */
  seq: z.optional(z.number()),
  /** The node's input, when the invocation that sent the task settled all its parents and it is small (node-input.ts). */
  input: z.optional(z.record(z.string(), z.unknown())),
  /**
   * Events of the request not logged yet, handed on by the invocation that
   * sent the task (its only continuation) for this one to log from `seq`
   * with its own (emit.ts, EventBuffer): when the oldest happened (epoch ms)
   * and their data.
   */
  events: z.optional(z.object({ since: z.number(), data: z.array(z.record(z.string(), z.unknown())) })),
  /**
   * The request as the sender's invocation knew it, when small: what never
   * changes of it spares the worker its read; its status and unpaid extra
   * may be behind, so the claim's condition, and the check (lib/usage)
   * where the wallet decides, go by the table (run-node.ts).
   */
  request: z.optional(z.record(z.string(), z.unknown())),
});

export type NodeTask = MessageOf<typeof NodeTaskSchema>;

export const NODE_TASK_MESSAGE: QueueMessage<typeof NodeTaskSchema> = { kind: 'node task', schema: NodeTaskSchema };
