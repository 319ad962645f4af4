import { defaultTable, type TableRef } from '#platform/table/table.js';
import { deliveriesRepo } from './deliveries-repository.js';
import { sendDelivery } from './delivery-messages.js';
import { checkEndpointUrl } from './endpoint-url.js';
import { endpointsRepo } from './endpoints-repository.js';
import type { EndpointsDeps } from './webhook-endpoints.js';

/**
 * The endpoints' use cases on the service's table and queue. The service
 * key is added by the one handler that shows a secret (create), so the
 * others do not bundle the Secrets Manager client.
 */
export function endpointsDeps(table: TableRef = defaultTable()): EndpointsDeps {
  return {
    endpoints: endpointsRepo(table),
    deliveries: deliveriesRepo(table),
    send: sendDelivery,
    checkUrl: (url) => checkEndpointUrl(url),
    now: () => new Date(),
  };
}
