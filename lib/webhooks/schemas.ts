import * as z from 'zod';
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX } from '#platform/config/limits.js';
import { limitParam, withExample } from '#platform/http/common-schemas.js';
import { MAX_DESCRIPTION_LENGTH, MAX_URL_LENGTH, WEBHOOK_EVENT_TYPES } from './model.js';

const url = z.string().trim().min(1).max(MAX_URL_LENGTH).meta({
  description:
    'Where deliveries are POSTed: an absolute `https:` URL whose host is public (the address checks of outbound calls, made now and on every delivery).',
});

const events = z
  .array(z.enum(WEBHOOK_EVENT_TYPES))
  .min(1)
  .max(2 * WEBHOOK_EVENT_TYPES.length)
  .meta({ description: 'The event types delivered to this endpoint; each is kept once.' });

const description = z.string().trim().max(MAX_DESCRIPTION_LENGTH);

export const CreateWebhookEndpointBody = withExample(
  z.strictObject({ url, events, description: description.optional() }).meta({ id: 'CreateWebhookEndpointRequest' }),
  { url: 'https://hooks.example.com/workflow-service', events: ['run.completed', 'run.failed'], description: 'Ops dashboard' },
);

export const UpdateWebhookEndpointBody = withExample(
  z
    .strictObject({
      url: url.optional(),
      events: events.optional(),
      description: description.nullable().optional(),
      disabled: z.boolean().optional().meta({ description: '`false` enables an endpoint again, also one a 410 disabled; `true` stops its deliveries.' }),
    })
    .meta({ id: 'UpdateWebhookEndpointRequest' }),
  { events: ['run.completed', 'run.failed', 'run.cancelled'], disabled: false },
);

export const ListWebhookQuery = z.object({
  limit: limitParam(LIST_LIMIT_MAX, LIST_LIMIT_DEFAULT),
  cursor: z.string().min(1).optional().meta({ description: '`next_cursor` of the previous page.' }),
});
