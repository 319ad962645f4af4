import * as z from 'zod';
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX } from '#platform/config/limits.js';
import { boundedJson, JSON_DEPTH_RULE, limitParam, withExample } from '#platform/http/common-schemas.js';
import { REQUEST_STATUSES } from '../model.js';

export const RunWorkflowBody = withExample(
  z
    .strictObject({
      workflow_version_id: z.uuid(),
      entry_node_ids: z.array(z.uuid()).min(1).max(200),
      chat_id: z.string().min(1).max(200).optional(),
      query: z.string().max(100_000).optional(),
      payload: boundedJson(z.record(z.string(), z.unknown()))
        .optional()
        .meta({ description: `The entry nodes' input (with \`query\` as its \`query\` unless it has one). ${JSON_DEPTH_RULE}` }),
      metadata: boundedJson(z.record(z.string(), z.unknown()))
        .optional()
        .meta({ description: `Any JSON object of yours, kept with the request and shown with it. ${JSON_DEPTH_RULE}` }),
    })
    .meta({ id: 'RunWorkflowRequest' }),
  {
    workflow_version_id: '9a3e5c71-2b4d-4e8f-8c1a-6d7e8f9a0b1c',
    entry_node_ids: ['5b0c8e2a-7d41-4f3b-9a6e-000000000001'],
    chat_id: '6f1d3b5a-8c2e-4a7b-9d0f-1e2a3b4c5d6e',
    query: 'The checkout page is down for every customer.',
    metadata: { ticket: 'SUP-1042' },
  },
);

export const ListWorkflowRequestsQuery = z.object({
  chat_id: z.string().min(1).optional(),
  workflow_id: z.uuid().optional(),
  status: z.enum(REQUEST_STATUSES).optional(),
  limit: limitParam(LIST_LIMIT_MAX, LIST_LIMIT_DEFAULT),
  cursor: z.string().min(1).optional(),
});
