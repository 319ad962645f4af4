import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { entityOf } from '#platform/table/items.js';
import { keys, ttlFromDate } from '#platform/table/keys.js';
import { newestUnderPrefix } from '#platform/table/queries.js';
import { defaultTable, isConditionFailure, type TableRef } from '#platform/table/table.js';
import { setFields } from '#platform/table/update-expressions.js';
import { type AttemptRecord, DELIVERY_ID, DELIVERY_RETENTION_SECONDS, type WebhookDelivery } from './model.js';

/**
 * Deliveries in the table (docs/data-model.md): one item per (endpoint,
 * event), `WEBHOOKENDPOINT#<endpoint id>` / `DELIVERY#<delivery id>`, the id
 * derived from the pair (model.ts, deliveryIdOf). Every change after its
 * creation is conditional on the series and the number of attempts read,
 * so a message handled twice, or a worker that died after its POST, can
 * record an attempt only once.
 */

/** A delivery written before `dispatched_by` was kept has none. */
const toDelivery = (item: Record<string, unknown>): WebhookDelivery => entityOf<WebhookDelivery>(item, [], { dispatched_by: null });

export function deliveriesRepo(table: TableRef = defaultTable()) {
  const { db, tableName } = table;

  async function get(endpointId: string, deliveryId: string): Promise<WebhookDelivery | undefined> {
    if (!DELIVERY_ID.test(deliveryId)) return undefined;
    const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.webhookDelivery(endpointId, deliveryId), ConsistentRead: true }));
    return Item ? toDelivery(Item) : undefined;
  }

  /** A conditional update of the delivery: the delivery as changed, or undefined when its condition failed (someone else changed it first). */
  async function change(delivery: WebhookDelivery, set: Record<string, unknown>, condition: string, values: Record<string, unknown>) {
    const changed = setFields(set);
    try {
      const { Attributes } = await db.send(
        new UpdateCommand({
          TableName: tableName,
          Key: keys.webhookDelivery(delivery.endpoint_id, delivery.id),
          UpdateExpression: changed.update,
          ConditionExpression: condition,
          ExpressionAttributeNames: { ...changed.names, '#series': 'series', '#attempts': 'attempts', '#status': 'status' },
          ExpressionAttributeValues: { ...changed.values, ...values },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return toDelivery(Attributes!);
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }

  return {
    get,

    /**
     * Puts the delivery unless its key is taken: `created` false and the
     * stored delivery when this (endpoint, event) was dispatched before.
     */
    async createOnce(delivery: WebhookDelivery): Promise<{ created: boolean; delivery: WebhookDelivery }> {
      try {
        await db.send(
          new PutCommand({
            TableName: tableName,
            Item: {
              ...keys.webhookDelivery(delivery.endpoint_id, delivery.id),
              entity: 'webhook_delivery',
              ...delivery,
              ttl: ttlFromDate(new Date(delivery.created_at)) + DELIVERY_RETENTION_SECONDS,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        return { created: true, delivery };
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        const old = (error as { Item?: Parameters<typeof unmarshall>[0] }).Item;
        const stored = old ? toDelivery(unmarshall(old)) : await get(delivery.endpoint_id, delivery.id);
        return { created: false, delivery: stored ?? delivery };
      }
    },

    /** The endpoint's deliveries, newest first (a consistent Query). `after` is the last id of the previous page. */
    async list(endpointId: string, options: { limit: number; after?: string }) {
      const page = await newestUnderPrefix(table, keys.webhookDeliveryPrefix(endpointId), (id) => keys.webhookDelivery(endpointId, id), options, toDelivery);
      return { deliveries: page.items, nextAfter: page.nextAfter };
    },

    /**
     * Records attempt number `attempt` (counted over every series) of a
     * pending delivery, on condition that it is still in `delivery.series`
     * with `attempt - 1` attempts made: undefined when it was recorded
     * already, or the series was replaced by a retry.
     */
    recordAttempt(delivery: WebhookDelivery, attempt: number, record: AttemptRecord) {
      return change(delivery, { ...record, attempts: attempt }, '#series = :seen_series AND #attempts = :seen_attempts AND #status = :pending', {
        ':seen_series': delivery.series,
        ':seen_attempts': attempt - 1,
        ':pending': 'pending',
      });
    },

    /** Ends a pending series where it stands: its endpoint is gone or disabled, its event past retention, or its message died (dead-letters.ts). */
    fail(delivery: WebhookDelivery, reason: string) {
      return change(
        delivery,
        { status: 'failed', last_error: reason, next_attempt_at: null },
        '#series = :seen_series AND #attempts = :seen_attempts AND #status = :pending',
        { ':seen_series': delivery.series, ':seen_attempts': delivery.attempts, ':pending': 'pending' },
      );
    },

    /**
     * Starts a new series now (POST …/retry): pending, the schedule counted
     * from the attempts made so far; messages of the former series are stale
     * from here on. Undefined when the delivery changed since it was read.
     */
    retry(delivery: WebhookDelivery, now: string) {
      return change(
        delivery,
        { status: 'pending', series: delivery.series + 1, series_start: delivery.attempts, next_attempt_at: now },
        '#series = :seen_series AND #attempts = :seen_attempts',
        { ':seen_series': delivery.series, ':seen_attempts': delivery.attempts },
      );
    },
  };
}

export type DeliveriesRepo = ReturnType<typeof deliveriesRepo>;
