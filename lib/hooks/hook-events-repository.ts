import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { entityOf } from '#platform/table/items.js';
import { keys, ttlFromDate } from '#platform/table/keys.js';
import { defaultTable, isConditionFailure, type TableRef } from '#platform/table/table.js';
import type { ClaimResult, EventGuard } from './model.js';

/**
 * The replay guard of a hook's events: one item per (hook, webhook-id) that
 * first claims the event for one delivery, then remembers the request it
 * started until `expires_at` (24 hours after the claim; also the item's TTL,
 * but an expired item is treated as absent on every read and write, since
 * TTL deletion is not prompt). A claim is a conditional Put, so of
 * concurrent deliveries exactly one claims; the others find the claim.
 */

/** The guard an item holds (its hook and creation time are the item's own). */
const toGuard = (item: Record<string, unknown>): EventGuard => entityOf<EventGuard>(item, ['hook_id', 'created_at']);

export function hookEventsRepo(table: TableRef = defaultTable()) {
  const { db, tableName } = table;

  /**
   * Claims the event for this delivery: the item is put unless a live one
   * is there (not expired, and not an abandoned claim whose lease ran out).
   * Refused, the answer carries the item that refused it (one round trip).
   */
  async function claim(
    hookId: string,
    webhookIdHash: string,
    input: { requestId: string; token: string; now: Date; leaseMs: number; windowSeconds: number },
  ): Promise<ClaimResult> {
    const expiresAt = ttlFromDate(input.now) + input.windowSeconds;
    try {
      await db.send(
        new PutCommand({
          TableName: tableName,
          Item: {
            ...keys.hookEvent(hookId, webhookIdHash),
            entity: 'hook_event',
            hook_id: hookId,
            state: 'claimed',
            request_id: input.requestId,
            claim_token: input.token,
            lease_until: input.now.getTime() + input.leaseMs,
            expires_at: expiresAt,
            ttl: expiresAt,
            created_at: input.now.toISOString(),
          },
          ConditionExpression: 'attribute_not_exists(pk) OR expires_at <= :now_s OR (#state = :claimed AND lease_until <= :now_ms)',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':now_s': ttlFromDate(input.now), ':now_ms': input.now.getTime(), ':claimed': 'claimed' },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { claimed: true };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      // The document client leaves the item on a failed condition as DynamoDB sent it, in attribute values.
      const item = (error as { Item?: Parameters<typeof unmarshall>[0] }).Item;
      if (item) return { claimed: false, guard: toGuard(unmarshall(item)) };
      // No item sent back (it vanished in between): read it.
      const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.hookEvent(hookId, webhookIdHash), ConsistentRead: true }));
      if (!Item) return claim(hookId, webhookIdHash, input);
      return { claimed: false, guard: toGuard(Item) };
    }
  }

  return {
    claim,

    /** The claimed event's request is created: the guard now answers it. False when the claim is no longer this delivery's. */
    async markStarted(hookId: string, webhookIdHash: string, token: string): Promise<boolean> {
      try {
        await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.hookEvent(hookId, webhookIdHash),
            UpdateExpression: 'SET #state = :started',
            ConditionExpression: 'claim_token = :token',
            ExpressionAttributeNames: { '#state': 'state' },
            ExpressionAttributeValues: { ':started': 'started', ':token': token },
          }),
        );
        return true;
      } catch (error) {
        if (isConditionFailure(error)) return false;
        throw error;
      }
    },

    /** The claimed event was refused (no request started): the guard goes, so a redelivery is tried afresh. */
    async release(hookId: string, webhookIdHash: string, token: string): Promise<void> {
      try {
        await db.send(
          new DeleteCommand({
            TableName: tableName,
            Key: keys.hookEvent(hookId, webhookIdHash),
            ConditionExpression: 'claim_token = :token AND #state = :claimed',
            ExpressionAttributeNames: { '#state': 'state' },
            ExpressionAttributeValues: { ':token': token, ':claimed': 'claimed' },
          }),
        );
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
    },
  };
}

export type HookEventsRepo = ReturnType<typeof hookEventsRepo>;
