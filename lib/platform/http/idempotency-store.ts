import { IdempotencyItemAlreadyExistsError, IdempotencyItemNotFoundError, IdempotencyRecordStatus } from '@aws-lambda-powertools/idempotency';
import { BasePersistenceLayer, IdempotencyRecord } from '@aws-lambda-powertools/idempotency/persistence';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { TABLE_DEFINITION } from '../table/definition.js';
import { keys } from '../table/keys.js';
import { defaultTable, isConditionFailure, type TableRef } from '../table/table.js';

type StoredRecord = Record<string, unknown>;

/**
 * Powertools idempotency records in the single table: pk = `IDEMPOTENCY#<hash>`,
 * sk = `IDEMPOTENCY` (a partition each, so no hot key), the expiry being the
 * table's TTL attribute, on the repositories' SDK client.
 *
 * Why not Powertools' own DynamoDBPersistenceLayer: the table's key is
 * composite (pk, sk), and with a sort key that layer writes every record
 * under one partition, `staticPkValue`, with the idempotency key as the sort
 * key. On a table every account shares, that is a hot partition (1,000
 * writes a second at most) for all idempotent writes of all accounts. It also
 * cannot add the `entity` attribute every item of the table carries. This
 * layer writes the same records under the same conditions (free, expired
 * though not yet deleted by TTL, or in progress past its own deadline).
 */
export class SingleTableIdempotencyStore extends BasePersistenceLayer {
  constructor(private readonly table: TableRef = defaultTable()) {
    super();
  }

  protected async _getRecord(idempotencyKey: string): Promise<IdempotencyRecord> {
    const { db, tableName } = this.table;
    const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.idempotency(idempotencyKey), ConsistentRead: true }));
    if (!Item) throw new IdempotencyItemNotFoundError();
    return toRecord(idempotencyKey, Item);
  }

  protected async _putRecord(record: IdempotencyRecord): Promise<void> {
    const { db, tableName } = this.table;
    const now = Date.now();
    try {
      await db.send(
        new PutCommand({
          TableName: tableName,
          Item: {
            ...keys.idempotency(record.idempotencyKey),
            entity: 'idempotency_record',
            [TABLE_DEFINITION.ttlAttribute]: record.expiryTimestamp,
            status: record.getStatus(),
            in_progress_expiration: record.inProgressExpiryTimestamp,
            validation: this.isPayloadValidationEnabled() ? record.payloadHash : undefined,
          },
          // Free, expired (TTL deletion is not prompt), or in progress past its own deadline.
          ConditionExpression:
            'attribute_not_exists(pk) OR #expiry < :now OR (#status = :inprogress AND attribute_exists(in_progress_expiration) AND in_progress_expiration < :now_ms)',
          ExpressionAttributeNames: { '#expiry': TABLE_DEFINITION.ttlAttribute, '#status': 'status' },
          ExpressionAttributeValues: { ':now': now / 1000, ':now_ms': now, ':inprogress': IdempotencyRecordStatus.INPROGRESS },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      // The document client leaves the item on a failed condition as DynamoDB sent it, in attribute values.
      const existing = (error as { Item?: Record<string, AttributeValue> }).Item;
      throw new IdempotencyItemAlreadyExistsError(
        `Failed to put record for already existing idempotency key: ${record.idempotencyKey}`,
        existing && toRecord(record.idempotencyKey, unmarshall(existing)),
      );
    }
  }

  protected async _updateRecord(record: IdempotencyRecord): Promise<void> {
    const { db, tableName } = this.table;
    await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.idempotency(record.idempotencyKey),
        UpdateExpression: `SET #expiry = :expiry, #status = :status${record.responseData !== undefined ? ', #data = :data' : ''}${this.isPayloadValidationEnabled() ? ', #validation = :validation' : ''}`,
        ExpressionAttributeNames: {
          '#expiry': TABLE_DEFINITION.ttlAttribute,
          '#status': 'status',
          ...(record.responseData !== undefined ? { '#data': 'data' } : {}),
          ...(this.isPayloadValidationEnabled() ? { '#validation': 'validation' } : {}),
        },
        ExpressionAttributeValues: {
          ':expiry': record.expiryTimestamp,
          ':status': record.getStatus(),
          ...(record.responseData !== undefined ? { ':data': record.responseData } : {}),
          ...(this.isPayloadValidationEnabled() ? { ':validation': record.payloadHash } : {}),
        },
      }),
    );
  }

  protected async _deleteRecord(record: IdempotencyRecord): Promise<void> {
    const { db, tableName } = this.table;
    await db.send(new DeleteCommand({ TableName: tableName, Key: keys.idempotency(record.idempotencyKey) }));
  }
}

function toRecord(idempotencyKey: string, item: StoredRecord): IdempotencyRecord {
  return new IdempotencyRecord({
    idempotencyKey,
    status: item.status as (typeof IdempotencyRecordStatus)[keyof typeof IdempotencyRecordStatus],
    expiryTimestamp: item[TABLE_DEFINITION.ttlAttribute] as number | undefined,
    inProgressExpiryTimestamp: item.in_progress_expiration as number | undefined,
    responseData: item.data as never,
    payloadHash: item.validation as string | undefined,
  });
}
