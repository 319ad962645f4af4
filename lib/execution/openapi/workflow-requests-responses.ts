import * as z from 'zod';
import { NODE_STATUSES, REQUEST_STATUSES } from '../model.js';

export const RunWorkflowResponse = z.object({ workflow_request_id: z.uuid(), status: z.enum(REQUEST_STATUSES) }).meta({ id: 'RunWorkflowResponse' });

const Failure = z.object({ code: z.string(), message: z.string() }).nullable();

const micro = (description: string) => z.number().int().min(0).meta({ description });
const Usage = z.object({
  input_tokens: z.number().int().min(0),
  output_tokens: z.number().int().min(0),
  cost_micro_usd: micro('Microdollars, priced from the price table (README, Money).'),
});

export const WorkflowRequestSchema = z
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
    started_at: z.string().nullable(),
    completed_at: z.string().nullable(),
    created_at: z.string(),
  })
  .meta({ id: 'WorkflowRequest' });

export const NodeExecutionSchema = z
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
  .meta({ id: 'NodeExecution' });

export const WorkflowRequestList = z
  .object({
    workflow_requests: z.array(WorkflowRequestSchema),
    next_cursor: z.string().nullable(),
    has_more: z.boolean(),
    limit: z.number().int(),
  })
  .meta({ id: 'WorkflowRequestList' });

export interface ExecutionTree {
  workflow_request: z.output<typeof WorkflowRequestSchema>;
  node_executions: Array<z.output<typeof NodeExecutionSchema>>;
  children: ExecutionTree[];
}

export const ExecutionTreeSchema: z.ZodType<ExecutionTree> = z
  .object({
    workflow_request: WorkflowRequestSchema,
    node_executions: z.array(NodeExecutionSchema),
    get children() {
      return z.array(ExecutionTreeSchema);
    },
  })
  .meta({ id: 'ExecutionTree' });

/** What every route on one request by id answers when it is not the caller's to see. */
export const REQUEST_NOT_FOUND = "No such request, a malformed id, or another account's (indistinguishable, `not_found`).";
