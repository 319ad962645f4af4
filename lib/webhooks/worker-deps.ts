import { guardedFetch } from '#net/guarded-fetch.js';
import { serviceKey } from '#platform/secrets/service-key.js';
import { defaultTable, type TableRef } from '#platform/table/table.js';
import { accountEventReader } from './account-event-reader.js';
import type { DeadLetterDeps } from './dead-letters.js';
import type { DeliveryDeps } from './deliver.js';
import { deliveriesRepo } from './deliveries-repository.js';
import { sendDelivery } from './delivery-messages.js';
import type { DispatchDeps } from './dispatch.js';
import { endpointsRepo } from './endpoints-repository.js';
import { retrySchedule } from './schedule.js';

/** The `webhook-events` worker's dependencies. */
export function dispatchDeps(table: TableRef = defaultTable()): DispatchDeps {
  return { events: accountEventReader(table), endpoints: endpointsRepo(table), deliveries: deliveriesRepo(table), send: sendDelivery, now: () => new Date() };
}

/** The `webhook-deliveries` worker's: the guarded client, the service key, and the schedule read from the environment on each use. */
export function deliveryDeps(table: TableRef = defaultTable()): DeliveryDeps {
  return {
    endpoints: endpointsRepo(table),
    deliveries: deliveriesRepo(table),
    events: accountEventReader(table),
    send: sendDelivery,
    serviceKey: serviceKey(),
    post: guardedFetch,
    schedule: () => retrySchedule(),
    now: () => new Date(),
  };
}

/** The dead-letter workers' of both queues: they only read and end deliveries. */
export function deadLetterDeps(table: TableRef = defaultTable()): DeadLetterDeps {
  return { endpoints: endpointsRepo(table), deliveries: deliveriesRepo(table) };
}
