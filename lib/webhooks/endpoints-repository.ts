import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConflictError, NotFoundError } from '#platform/errors.js';
import { deleteCounted, putCounted } from '#platform/table/counted-items.js';
import { entityOf } from '#platform/table/items.js';
import { keys } from '#platform/table/keys.js';
import { newestUnderPrefix, queryAll } from '#platform/table/queries.js';
import { defaultTable, isConditionFailure, type TableRef } from '#platform/table/table.js';
import { setFields } from '#platform/table/update-expressions.js';
import { EndpointLimitReachedError } from './errors.js';
import { ENDPOINT_ID, type EndpointPatch, MAX_ENDPOINTS_PER_ACCOUNT, type WebhookEndpoint, type WebhookEventType } from './model.js';

const counterOf = (accountId: string) => ({ key: keys.webhookEndpointCount(accountId), accountId, entity: 'webhook_endpoint_count' });

/**
 * Webhook endpoints in the table (docs/data-model.md): one item each under
 * its account, `ACCOUNT#<a>` / `WEBHOOKENDPOINT#<id>`. No secret is stored:
 * `secret_version` names the derived one.
 */

/** An endpoint created before secrets were rotated has no rotation fields. */
const toEndpoint = (item: Record<string, unknown>): WebhookEndpoint =>
  entityOf<WebhookEndpoint>(item, [], { previous_secret_version: null, previous_valid_until: null, secret_rotated_at: null });

export function endpointsRepo(table: TableRef = defaultTable()) {
  const { db, tableName } = table;

  async function get(accountId: string, endpointId: string): Promise<WebhookEndpoint | undefined> {
    if (!ENDPOINT_ID.test(endpointId)) return undefined;
    const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.webhookEndpoint(accountId, endpointId), ConsistentRead: true }));
    return Item ? toEndpoint(Item) : undefined;
  }

  return {
    /** Puts a new endpoint, its key free, with the account's count of them below MAX_ENDPOINTS_PER_ACCOUNT. */
    async create(endpoint: WebhookEndpoint): Promise<WebhookEndpoint> {
      const outcome = await putCounted(table, counterOf(endpoint.account_id), MAX_ENDPOINTS_PER_ACCOUNT, {
        TableName: tableName,
        Item: { ...keys.webhookEndpoint(endpoint.account_id, endpoint.id), entity: 'webhook_endpoint', ...endpoint },
        ConditionExpression: 'attribute_not_exists(pk)',
      });
      if (outcome === 'limit') throw new EndpointLimitReachedError();
      if (outcome === 'exists') throw new ConflictError('webhook_endpoint_exists', `A webhook endpoint with id ${endpoint.id} already exists.`);
      return endpoint;
    },

    /** Undefined for a malformed, unknown or other account's id alike. */
    get,

    /** The account's endpoints, newest first (a consistent Query). `after` is the last id of the previous page. */
    async list(accountId: string, options: { limit: number; after?: string }) {
      const page = await newestUnderPrefix(table, keys.webhookEndpointPrefix(accountId), (id) => keys.webhookEndpoint(accountId, id), options, toEndpoint);
      return { endpoints: page.items, nextAfter: page.nextAfter };
    },

    /**
     * The account's enabled endpoints subscribed to `type`: the dispatcher's
     * one Query, under the event's own account, so another account's
     * endpoint is never read.
     */
    async subscribed(accountId: string, type: WebhookEventType): Promise<WebhookEndpoint[]> {
      const prefix = keys.webhookEndpointPrefix(accountId);
      const items = await queryAll(db, {
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        FilterExpression: '#disabled = :false AND contains(#events, :type)',
        ExpressionAttributeNames: { '#disabled': 'disabled', '#events': 'events' },
        ExpressionAttributeValues: { ':pk': prefix.pk, ':prefix': prefix.skPrefix, ':false': false, ':type': type },
        ConsistentRead: true,
      });
      return items.map(toEndpoint);
    },

    /**
     * Changes the fields given, on condition that the endpoint exists;
     * enabling it clears `disabled_reason`, disabling it says `user`. The
     * endpoint as changed; NotFoundError when it is gone.
     */
    async update(accountId: string, endpointId: string, patch: EndpointPatch, now: string): Promise<WebhookEndpoint> {
      if (!ENDPOINT_ID.test(endpointId)) throw new NotFoundError('No such webhook endpoint.');
      const { update, names, values } = setFields({
        updated_at: now,
        url: patch.url,
        events: patch.events,
        description: patch.description,
        ...(patch.disabled === undefined ? {} : { disabled: patch.disabled, disabled_reason: patch.disabled ? 'user' : null }),
      });
      try {
        const { Attributes } = await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.webhookEndpoint(accountId, endpointId),
            UpdateExpression: update,
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: values,
            ReturnValues: 'ALL_NEW',
          }),
        );
        return toEndpoint(Attributes!);
      } catch (error) {
        if (isConditionFailure(error)) throw new NotFoundError('No such webhook endpoint.');
        throw error;
      }
    },

    /**
     * One Update: the current secret version becomes the previous one, valid
     * until `previousValidUntil`, and the version goes up by one (the item's
     * own values, read as before the update, so concurrent rotations each
     * get a version of their own). NotFoundError when the endpoint is gone.
     */
    async rotate(accountId: string, endpointId: string, input: { now: string; previousValidUntil: string }): Promise<WebhookEndpoint> {
      if (!ENDPOINT_ID.test(endpointId)) throw new NotFoundError('No such webhook endpoint.');
      try {
        const { Attributes } = await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.webhookEndpoint(accountId, endpointId),
            UpdateExpression:
              'SET previous_secret_version = secret_version, previous_valid_until = :until, secret_version = secret_version + :one, secret_rotated_at = :now, updated_at = :now',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: { ':until': input.previousValidUntil, ':one': 1, ':now': input.now },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return toEndpoint(Attributes!);
      } catch (error) {
        if (isConditionFailure(error)) throw new NotFoundError('No such webhook endpoint.');
        throw error;
      }
    },

    /** A delivery was answered 410: the endpoint is disabled (`gone`) until PATCH enables it. Nothing when it is gone. */
    async disableGone(accountId: string, endpointId: string, now: string): Promise<void> {
      const { update, names, values } = setFields({ disabled: true, disabled_reason: 'gone', updated_at: now });
      try {
        await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.webhookEndpoint(accountId, endpointId),
            UpdateExpression: update,
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: values,
          }),
        );
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
    },

    /** Deletes the endpoint and lowers the account's count; NotFoundError when it was not there (so of concurrent deletes one answers 204). */
    async delete(accountId: string, endpointId: string): Promise<void> {
      if (!ENDPOINT_ID.test(endpointId)) throw new NotFoundError('No such webhook endpoint.');
      const deleted = await deleteCounted(table, counterOf(accountId), {
        TableName: tableName,
        Key: keys.webhookEndpoint(accountId, endpointId),
        ConditionExpression: 'attribute_exists(pk)',
      });
      if (!deleted) throw new NotFoundError('No such webhook endpoint.');
    },
  };
}

export type EndpointsRepo = ReturnType<typeof endpointsRepo>;
