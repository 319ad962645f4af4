import type { EndpointContract } from '#platform/http/contract.js';
import { WebhookDeliveriesList } from './webhook-deliveries-list.js';
import { WebhookDeliveriesRetry } from './webhook-deliveries-retry.js';
import { WebhookEndpointsCreate } from './webhook-endpoints-create.js';
import { WebhookEndpointsDelete } from './webhook-endpoints-delete.js';
import { WebhookEndpointsGet } from './webhook-endpoints-get.js';
import { WebhookEndpointsList } from './webhook-endpoints-list.js';
import { WebhookEndpointsRotateSecret } from './webhook-endpoints-rotate-secret.js';
import { WebhookEndpointsUpdate } from './webhook-endpoints-update.js';

export const WEBHOOKS_ENDPOINTS: readonly EndpointContract[] = [
  WebhookEndpointsCreate,
  WebhookEndpointsList,
  WebhookEndpointsGet,
  WebhookEndpointsUpdate,
  WebhookEndpointsDelete,
  WebhookEndpointsRotateSecret,
  WebhookDeliveriesList,
  WebhookDeliveriesRetry,
];
