import * as z from 'zod';
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX } from '#platform/config/limits.js';
import { boundedJson, JSON_DEPTH_RULE, limitParam, withExample } from '#platform/http/common-schemas.js';

export const CreateHookBody = withExample(
  z
    .strictObject({
      name: z.string().trim().min(1).max(200).meta({ description: 'Leading and trailing spaces are removed.' }),
      workflow_version_id: z.uuid().meta({ description: 'The version every event runs: one of the account’s.' }),
      entry_node_ids: z
        .array(z.uuid())
        .min(1)
        .max(200)
        .meta({ description: 'Entry nodes of that version the request starts at, as `POST /v1/workflow-requests/run` takes them.' }),
    })
    .meta({ id: 'CreateHookRequest' }),
  { name: 'Support inbox', workflow_version_id: '9a3e5c71-2b4d-4e8f-8c1a-6d7e8f9a0b1c', entry_node_ids: ['5b0c8e2a-7d41-4f3b-9a6e-000000000001'] },
);

export const ListHooksQuery = z.object({
  limit: limitParam(LIST_LIMIT_MAX, LIST_LIMIT_DEFAULT),
  cursor: z.string().min(1).optional().meta({ description: '`next_cursor` of the previous page.' }),
});

/** The event: any JSON object, signed as received. */
export const HookEventBody = withExample(
  boundedJson(z.record(z.string(), z.unknown())).meta({
    id: 'HookEvent',
    description: `Any JSON object, at most 256 KiB: it becomes the \`payload\` of the workflow request the event starts. ${JSON_DEPTH_RULE}`,
  }),
  { query: 'The checkout page is down for every customer.', ticket: 'SUP-1042', reporter: 'ada@example.com' },
);
