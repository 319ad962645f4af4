import * as z from 'zod';
import { withExample } from '#platform/http/common-schemas.js';
import { v1Page } from '#platform/openapi/pagination.js';
import { NODE_STATUSES, REQUEST_STATUSES } from '../model.js';

const REQUEST_ID = '7e9a1c3d-5f2b-4d6e-8a0c-2b4d6f8a0c1e';
const VERSION_ID = '9a3e5c71-2b4d-4e8f-8c1a-6d7e8f9a0b1c';
const ENTRY_NODE_ID = '5b0c8e2a-7d41-4f3b-9a6e-000000000001';
const ACCOUNT_ID = '0f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a';

export const RunWorkflowResponse = withExample(
  z.object({ workflow_request_id: z.uuid(), status: z.enum(REQUEST_STATUSES) }).meta({ id: 'RunWorkflowResponse' }),
  { workflow_request_id: REQUEST_ID, status: 'pending' },
);

const Failure = z.object({ code: z.string(), message: z.string() }).nullable();

const micro = (description: string) => z.number().int().min(0).meta({ description });
const Usage = z.object({
  input_tokens: z.number().int().min(0),
  output_tokens: z.number().int().min(0),
  cost_micro_usd: micro('Microdollars, priced from the price table (this document’s Prices).'),
});

const REQUEST_EXAMPLE = {
  id: REQUEST_ID,
  workflow_version_id: VERSION_ID,
  workflow_id: '2c4e6a80-1b3d-4f5a-8e7c-9d0b1a2c3e4f',
  entry_node_ids: [ENTRY_NODE_ID],
  user_id: ACCOUNT_ID,
  billing_user_id: ACCOUNT_ID,
  parent_node_execution_id: null,
  parent_workflow_request_id: REQUEST_ID,
  chat_id: '6f1d3b5a-8c2e-4a7b-9d0f-1e2a3b4c5d6e',
  status: 'completed',
  payload: { query: 'The checkout page is down for every customer.' },
  query: 'The checkout page is down for every customer.',
  metadata: null,
  error: null,
  usage: { input_tokens: 9, output_tokens: 9, cost_micro_usd: 327 },
  redrive_count: 0,
  started_at: '2026-01-31T09:40:00.100Z',
  completed_at: '2026-01-31T09:40:02.400Z',
  created_at: '2026-01-31T09:40:00.000Z',
} as const;

const NODE_EXAMPLE = {
  id: '3d5f7b9c-1e2a-4c4e-9f6a-8b0d2f4a6c8e',
  workflow_request_id: REQUEST_ID,
  node_id: ENTRY_NODE_ID,
  node_type: 'agent',
  workflow_version_id: VERSION_ID,
  status: 'completed',
  input_data: { query: 'The checkout page is down for every customer.' },
  output_data: { text: 'urgent' },
  attempt_count: 1,
  error: null,
  usage: { input_tokens: 9, output_tokens: 1, cost_micro_usd: 111 },
  created_at: '2026-01-31T09:40:00.000Z',
  started_at: '2026-01-31T09:40:00.100Z',
  completed_at: '2026-01-31T09:40:01.200Z',
  failed_at: null,
} as const;

export const WorkflowRequestSchema = withExample(
  z
    .object({
      id: z.uuid(),
      workflow_version_id: z.uuid(),
      workflow_id: z.uuid(),
      entry_node_ids: z.array(z.uuid()),
      user_id: z.uuid(),
      billing_user_id: z.uuid().nullable(),
      parent_node_execution_id: z.uuid().nullable(),
      parent_workflow_request_id: z.uuid().meta({ description: 'Equals `id` for root requests.' }),
      chat_id: z.string().nullable(),
      status: z.enum(REQUEST_STATUSES),
      payload: z.record(z.string(), z.unknown()),
      query: z.string().nullable(),
      metadata: z.record(z.string(), z.unknown()).nullable(),
      error: Failure,
      usage: Usage.meta({
        description:
          'What its node executions used: model tokens as each settles; `cost_micro_usd` is the total, complete once the request has ended (the flat fee of nodes that called no model is added by its end).',
      }),
      redrive_count: z
        .number()
        .int()
        .min(0)
        .meta({ description: 'How many times it was redriven (`POST /v1/workflow-requests/{id}/redrive`); 0 for a request never redriven.' }),
      started_at: z.string().nullable(),
      completed_at: z.string().nullable(),
      created_at: z.string(),
    })
    .meta({ id: 'WorkflowRequest' }),
  REQUEST_EXAMPLE,
);

export const NodeExecutionSchema = withExample(
  z
    .object({
      id: z.uuid(),
      workflow_request_id: z.uuid(),
      node_id: z.uuid(),
      node_type: z.string(),
      workflow_version_id: z.uuid(),
      status: z.enum(NODE_STATUSES),
      input_data: z.record(z.string(), z.unknown()).nullable(),
      output_data: z.unknown(),
      attempt_count: z.number().int(),
      error: Failure,
      usage: Usage.nullable().meta({
        description: 'What this execution cost: the flat fee per node execution, plus the tokens of the model an agent node called; null until it settles.',
      }),
      created_at: z.string(),
      started_at: z.string().nullable(),
      completed_at: z.string().nullable(),
      failed_at: z.string().nullable(),
    })
    .meta({ id: 'NodeExecution' }),
  NODE_EXAMPLE,
);

export const WorkflowRequestList = v1Page('workflow_requests', WorkflowRequestSchema, {
  id: 'WorkflowRequestList',
  limit: true,
  itemsDescription: 'Newest first.',
});

export interface ExecutionTree {
  workflow_request: z.output<typeof WorkflowRequestSchema>;
  node_executions: Array<z.output<typeof NodeExecutionSchema>>;
  redriven_node_executions: Array<z.output<typeof NodeExecutionSchema>>;
  children: ExecutionTree[];
}

export const ExecutionTreeSchema: z.ZodType<ExecutionTree> = withExample(
  z
    .object({
      workflow_request: WorkflowRequestSchema,
      node_executions: z
        .array(NodeExecutionSchema)
        .meta({ description: 'Each node’s execution: after a redrive, the one that redrive made of it, if it ran again.' }),
      redriven_node_executions: z.array(NodeExecutionSchema).meta({
        description:
          'The executions redrives replaced (the failed and stopped ones, and those that never ran because of them), in the order they were replaced; empty for a request never redriven.',
      }),
      get children() {
        return z.array(ExecutionTreeSchema);
      },
    })
    .meta({ id: 'ExecutionTree' }),
  { workflow_request: REQUEST_EXAMPLE, node_executions: [NODE_EXAMPLE], redriven_node_executions: [], children: [] },
);

/** 409 of a redrive: the request is not `failed` or `stopped`, or another redrive moved it first. */
export const REQUEST_NOT_REDRIVABLE =
  'The request is not `failed` or `stopped` (`request_not_redrivable`): pending, in progress, waiting or completed, a child request (redriven with its parent’s `workflow` node), or another redrive moved it first. Also an Idempotency-Key reused with another body (`idempotency_key_conflict`), or still in flight (`idempotency_key_in_flight`, with `Retry-After`).';

/** What every route on one request by id answers when it is not the caller's to see. */
export const REQUEST_NOT_FOUND = "No such request, a malformed id, or another account's (indistinguishable, `not_found`).";
